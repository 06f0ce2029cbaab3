import { describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import { addressAllowed } from '../../lambdas/core/address-allowlist.ts';
import { ApiError, WriteConflict } from '../../lambdas/core/errors.ts';
import { memberActor } from '../../lambdas/core/member-access.ts';
import { OPERATOR_ACTOR, SCOPES, type ApiKey } from '../../lambdas/core/model.ts';
import type { ApiKeyStore, AuditEntryInput } from '../../lambdas/core/ports.ts';
import { apiKeyState, apiKeyView, createApiKey, revokeApiKey, type ApiKeyInput } from '../../lambdas/core/use-cases/api-keys.ts';
import { CLIENT_ID, FakeDirectory, FIXED_NOW, fixedClock, makeApiKey, makeMember, ORG_ID } from './support/fakes.ts';

/**
 * The API key rule (core/use-cases/api-keys.ts) the operator CLI and the member app's API keys
 * page share: what a key may be created with, field by field, and when it can be revoked.
 */
class FakeApiKeys implements ApiKeyStore {
  readonly items = new Map<string, ApiKey>();
  readonly audits: AuditEntryInput[] = [];
  /** Runs before a revocation is written; may change the stored key to stage a race. */
  beforeRevoke: (() => void) | null = null;

  async findByHash(hash: string) {
    return this.items.get(hash) ?? null;
  }
  async listForOrganisation(orgId: string) {
    return [...this.items.values()].filter((k) => k.orgId === orgId);
  }
  /** Hashes of keys stored as before pointers were kept: found through the list only. */
  readonly unpointed = new Set<string>();
  async hashOfKey(orgId: string, idOrPrefix: string) {
    const key = [...this.items.values()].find((k) => k.orgId === orgId && (k.id === idOrPrefix || k.prefix === idOrPrefix) && !this.unpointed.has(k.hash));
    return key?.hash ?? null;
  }
  async create(apiKey: ApiKey, audit: AuditEntryInput) {
    this.items.set(apiKey.hash, apiKey);
    this.audits.push(audit);
  }
  async revoke(apiKey: ApiKey, revokedAt: string, audit: AuditEntryInput) {
    this.beforeRevoke?.();
    const stored = this.items.get(apiKey.hash)!;
    if (stored.revokedAt) throw new WriteConflict('revoked meanwhile');
    this.items.set(apiKey.hash, { ...stored, revokedAt });
    this.audits.push(audit);
  }
}

const setUp = () => {
  const apiKeys = new FakeApiKeys();
  return { apiKeys, deps: { apiKeys, directory: new FakeDirectory(), clock: fixedClock() } };
};

const input = (overrides: Partial<ApiKeyInput> = {}): ApiKeyInput => ({ orgId: ORG_ID, name: 'Helpdesk', scopes: ['requests:read'], ...overrides });

/** The 422's errors by field. */
const refusal = async (overrides: Partial<ApiKeyInput>) => {
  const { deps, apiKeys } = setUp();
  const error = await createApiKey(deps, OPERATOR_ACTOR, input(overrides)).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(422);
  expect((error as ApiError).code).toBe('validation_failed');
  expect(apiKeys.items.size, 'nothing stored').toBe(0);
  return (error as ApiError).errors!;
};

const HOUR = 3_600_000;

describe('createApiKey', () => {
  it('stores only the hash, answers the secret once, and audits api_key.created with the actor', async () => {
    const { deps, apiKeys } = setUp();
    const member = makeMember('Ada Admin');
    const { apiKey, secret, client } = await createApiKey(deps, memberActor(member), input({
      name: '  Helpdesk  ',
      scopes: ['requests:write', 'requests:read', 'requests:read'],
      clientId: CLIENT_ID,
      allowlist: [' 203.0.113.7 ', '2001:db8::/32', '203.0.113.7'],
      expiresAt: '2030-12-31T17:00:00+01:00',
    }));
    expect(secret).toMatch(/^chs_live_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toMatchObject({
      orgId: ORG_ID,
      name: 'Helpdesk',
      prefix: secret.slice(0, 15),
      hash: apiKeyHash(secret),
      scopes: ['requests:write', 'requests:read'],
      clientId: CLIENT_ID,
      allowlist: ['203.0.113.7', '2001:db8::/32'],
      expiresAt: '2030-12-31T16:00:00.000Z',
      revokedAt: null,
      createdAt: FIXED_NOW.toISOString(),
    });
    expect(client?.id).toBe(CLIENT_ID);
    expect(JSON.stringify([...apiKeys.items.values()])).not.toContain(secret);
    expect(apiKeys.audits).toEqual([
      {
        orgId: ORG_ID,
        type: 'api_key.created',
        actor: memberActor(member),
        clientId: null,
        requestId: null,
        data: {
          actor: { type: 'member', label: 'Ada Admin' },
          details: {
            key_id: apiKey.id,
            name: 'Helpdesk',
            prefix: apiKey.prefix,
            scopes: apiKey.scopes,
            client_id: CLIENT_ID,
            allowlist: apiKey.allowlist,
            expires_at: apiKey.expiresAt,
          },
        },
      },
    ]);
    expect(JSON.stringify(apiKeys.audits)).not.toContain(secret);
  });

  it('refuses a blank or overlong name', async () => {
    expect(await refusal({ name: '   ' })).toEqual({ name: ['Must be 1 to 100 characters.'] });
    expect(await refusal({ name: 'x'.repeat(101) })).toEqual({ name: ['Must be 1 to 100 characters.'] });
  });

  it('refuses no scope, and names every unknown one', async () => {
    expect((await refusal({ scopes: [] })).scopes).toEqual([`Choose at least one scope: ${SCOPES.join(', ')}.`]);
    const errors = await refusal({ scopes: ['requests:read', 'admin', 'Requests:Write'] });
    expect(errors.scopes).toHaveLength(2);
    expect(errors.scopes[0]).toContain('"admin"');
    expect(errors.scopes[1]).toContain('"Requests:Write"');
  });

  it('refuses a client of no such id in the organisation', async () => {
    expect(await refusal({ clientId: '01hzzzzzzzzzzzzzzzzzzzzzzz' })).toEqual({ client_id: ['No such client in this organisation.'] });
  });

  it('reads every allowlist entry exactly as a call is judged: what it refuses would match nothing', async () => {
    const bad = ['10.0.0.0/33', 'not-an-ip', '10.0.0.0/abc', '::1/200', '/8', '10.0.0.0/', '300.1.1.1', '010.0.0.0/8', '10.1', 'fe80::1%eth0', '10.0.0.0/8/8'];
    const errors = await refusal({ allowlist: ['192.0.2.0/24', ...bad] });
    expect(Object.keys(errors)).toEqual(['allowlist']);
    expect(errors.allowlist).toHaveLength(bad.length);
    bad.forEach((entry, i) => expect(errors.allowlist[i]).toContain(JSON.stringify(entry)));
    // What the rule refuses, the matcher could never have matched; what it accepts, the matcher reads.
    for (const entry of bad) expect(addressAllowed('10.1.2.3', [entry]), entry).toBe(false);
    const { deps } = setUp();
    const good = ['10.0.0.0/8', '10.1.2.3', '10.1.2.3/32', '0.0.0.0/0', '2001:db8::/32', '2001:0db8::1', '::ffff:10.1.2.3'];
    const { apiKey } = await createApiKey(deps, OPERATOR_ACTOR, input({ allowlist: good }));
    expect(apiKey.allowlist).toEqual(good);
    expect(addressAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
  });

  it('refuses a blank allowlist entry or a blank expiry, never reading either as the widest setting', async () => {
    expect(await refusal({ allowlist: ['203.0.113.7', ' '] })).toEqual({ allowlist: ['Entries must not be blank.'] });
    expect(Object.keys(await refusal({ expiresAt: '' }))).toEqual(['expires_at']);
  });

  it('refuses more than 100 allowlist entries', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    expect(await refusal({ allowlist: many })).toEqual({ allowlist: ['At most 100 entries.'] });
  });

  it('takes an expiry in the future only, as an ISO 8601 date (through its end, UTC) or date-time with its offset', async () => {
    expect(await refusal({ expiresAt: new Date(FIXED_NOW.getTime() - HOUR).toISOString() })).toEqual({ expires_at: ['Must be in the future.'] });
    expect(await refusal({ expiresAt: FIXED_NOW.toISOString() })).toEqual({ expires_at: ['Must be in the future.'] });
    for (const malformed of ['tomorrow', '2030-02-30', '2030-13-01', '2030-12-31T17:00:00', '2030-12-31T25:00Z', '31/12/2030', '1e12']) {
      expect(Object.keys(await refusal({ expiresAt: malformed })), malformed).toEqual(['expires_at']);
    }
    const { deps } = setUp();
    // A date alone: the key works through that day (UTC), as the application's date picker means it.
    expect((await createApiKey(deps, OPERATOR_ACTOR, input({ expiresAt: '2030-12-31' }))).apiKey.expiresAt).toBe('2030-12-31T23:59:59.999Z');
    expect((await createApiKey(deps, OPERATOR_ACTOR, input({ expiresAt: '2030-12-31t23:59:59.999z' }))).apiKey.expiresAt).toBe('2030-12-31T23:59:59.999Z');
  });

  it('lists every problem of a call at once', async () => {
    expect(Object.keys(await refusal({ name: '', scopes: ['nope'], allowlist: ['x'], expiresAt: '2000-01-01', clientId: '01hzzzzzzzzzzzzzzzzzzzzzzz' })).sort()).toEqual(
      ['allowlist', 'client_id', 'expires_at', 'name', 'scopes'],
    );
  });
});

describe('revokeApiKey', () => {
  it('revokes by id or by display prefix, audited api_key.revoked with the actor', async () => {
    const { deps, apiKeys } = setUp();
    const first = makeApiKey({ id: '01hzzzzzzzzzzzzzzzzzzzzke1', hash: 'a'.repeat(64), prefix: 'chs_live_aaaaaa' });
    const second = makeApiKey({ id: '01hzzzzzzzzzzzzzzzzzzzzke2', hash: 'b'.repeat(64), prefix: 'chs_live_bbbbbb' });
    apiKeys.items.set(first.hash, first).set(second.hash, second);
    const member = makeMember('Ada Admin');

    expect(await revokeApiKey(deps, memberActor(member), ORG_ID, first.id)).toEqual({ ...first, revokedAt: FIXED_NOW.toISOString() });
    expect((await revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, 'chs_live_bbbbbb')).id).toBe(second.id);
    expect(apiKeys.audits.map((a) => [a.type, a.actor.label, (a.data.details as { key_id: string }).key_id])).toEqual([
      ['api_key.revoked', 'Ada Admin', first.id],
      ['api_key.revoked', 'operator', second.id],
    ]);
  });

  it('finds a key made before pointers were kept through the organisation\'s list, by id or prefix', async () => {
    const { deps, apiKeys } = setUp();
    const first = makeApiKey({ id: '01hzzzzzzzzzzzzzzzzzzzzke1', hash: 'a'.repeat(64), prefix: 'chs_live_aaaaaa' });
    const second = makeApiKey({ id: '01hzzzzzzzzzzzzzzzzzzzzke2', hash: 'b'.repeat(64), prefix: 'chs_live_bbbbbb' });
    apiKeys.items.set(first.hash, first).set(second.hash, second);
    apiKeys.unpointed.add(first.hash).add(second.hash);
    expect((await revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, first.id)).id).toBe(first.id);
    expect((await revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, 'chs_live_bbbbbb')).id).toBe(second.id);
    expect(apiKeys.items.get(second.hash)?.revokedAt).toBe(FIXED_NOW.toISOString());
  });

  it('answers 409 illegal_transition for a key already revoked, also when another revocation won the race', async () => {
    const { deps, apiKeys } = setUp();
    const key = makeApiKey();
    apiKeys.items.set(key.hash, key);
    await revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, key.id);
    await expect(revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, key.id)).rejects.toMatchObject({ status: 409, code: 'illegal_transition' });

    const raced = makeApiKey({ id: '01hzzzzzzzzzzzzzzzzzzzzke3', hash: 'c'.repeat(64) });
    apiKeys.items.set(raced.hash, raced);
    apiKeys.beforeRevoke = () => apiKeys.items.set(raced.hash, { ...raced, revokedAt: FIXED_NOW.toISOString() });
    await expect(revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, raced.id)).rejects.toMatchObject({ status: 409, code: 'illegal_transition' });
    expect(apiKeys.audits).toHaveLength(1);
  });

  it('answers 404 for a key of no such id or prefix in the organisation', async () => {
    const { deps, apiKeys } = setUp();
    const elsewhere = makeApiKey({ orgId: '01hzzzzzzzzzzzzzzzzzzzzor2' });
    apiKeys.items.set(elsewhere.hash, elsewhere);
    await expect(revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, elsewhere.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(revokeApiKey(deps, OPERATOR_ACTOR, ORG_ID, 'chs_live_nope00')).rejects.toMatchObject({ status: 404 });
  });
});

describe('apiKeyState and apiKeyView', () => {
  it('is active, expired from the moment of its expiry, and revoked whatever its expiry', () => {
    const expiresAt = new Date(FIXED_NOW.getTime() + HOUR).toISOString();
    expect(apiKeyState(makeApiKey(), FIXED_NOW)).toBe('active');
    expect(apiKeyState(makeApiKey({ expiresAt }), FIXED_NOW)).toBe('active');
    expect(apiKeyState(makeApiKey({ expiresAt }), new Date(Date.parse(expiresAt) - 1))).toBe('active');
    expect(apiKeyState(makeApiKey({ expiresAt }), new Date(expiresAt))).toBe('expired');
    expect(apiKeyState(makeApiKey({ expiresAt, revokedAt: FIXED_NOW.toISOString() }), new Date(expiresAt))).toBe('revoked');
  });

  it('shows the client by name and never the hash', () => {
    const key = makeApiKey({ clientId: CLIENT_ID });
    const view = apiKeyView(key, new Map([[CLIENT_ID, { id: CLIENT_ID, orgId: ORG_ID, name: 'Acme', createdAt: '' }]]), FIXED_NOW);
    expect(view).toEqual({
      id: key.id,
      object: 'api_key',
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      client: { id: CLIENT_ID, name: 'Acme' },
      allowlist: [],
      expires_at: null,
      revoked_at: null,
      created_at: key.createdAt,
      last_used_at: null,
      state: 'active',
    });
    expect(JSON.stringify(view)).not.toContain(key.hash);
  });
});
