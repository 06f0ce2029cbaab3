/**
 * The member application's API keys endpoints over real HTTP (docs/web-api.md, API keys): owners
 * and admins list, create (Idempotency-Key, the secret shown once) and revoke the organisation's
 * keys through the operator CLI's own rule (core/use-cases/api-keys.ts), audited with the member
 * as the actor; a plain member is refused. The key made here really calls /v1, until revoked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { SCOPES } from '../../lambdas/core/model.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, expectError, expectKeys, ULID } from '../support/shapes.ts';
import { scanTable, startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

const BASE_TIME = Date.now();
const HOUR = 3_600_000;
const clock = new FakeClock(BASE_TIME);

const KEY_FIELDS = ['id', 'object', 'name', 'prefix', 'scopes', 'client', 'allowlist', 'expires_at', 'revoked_at', 'created_at', 'last_used_at', 'state'];

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;
let admin: MemberBrowser;
let adminName: string;
let plain: MemberBrowser;
let clientId: string;

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Keys Org' });
  clientId = (await service.admin.createClient(org.orgId, 'Acme Ltd')).id;
  adminName = 'Ada Admin';
  const adminEmail = `ada-${org.orgId.slice(-6)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name: adminName, email: adminEmail, role: 'admin' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
  admin = await MemberBrowser.signIn(service, adminEmail);
  plain = await MemberBrowser.signIn(service, org.member.email);
});
afterAll(() => service?.stop());
beforeEach(() => clock.set(BASE_TIME));

let sequence = 0;
const create = (browser: MemberBrowser, body: Record<string, unknown>, idempotencyKey = `create-${(sequence += 1)}-${BASE_TIME}`) =>
  browser.call('POST', '/app/api/keys', { body, headers: { 'Idempotency-Key': idempotencyKey } });

const expectCreated = (answer: ApiAnswer) => {
  expect(answer.status, answer.text).toBe(201);
  expectKeys(answer.body, ['api_key', 'secret'], 'creation answer');
  expectKeys(answer.body.api_key, KEY_FIELDS, 'api_key');
  return answer.body as { api_key: Record<string, any>; secret: string | null };
};

const listed = async (browser: MemberBrowser = admin) => {
  const answer = await browser.call('GET', '/app/api/keys');
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { data: Array<Record<string, any>>; scopes: string[]; clients: Array<{ id: string; name: string }>; api_access: boolean };
};

const ping = (key: string) => service.call('GET', '/ping', { key });

describe('POST /app/api/keys', () => {
  it('creates a key: 201, the secret once, stored only as its hash, audited with the member as the actor', async () => {
    const expiresAt = new Date(BASE_TIME + 30 * 24 * HOUR).toISOString();
    const answer = await create(admin, {
      name: 'Helpdesk integration',
      scopes: ['requests:read', 'requests:write'],
      client_id: clientId,
      allowlist: ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32'],
      expires_at: expiresAt,
    });
    const { api_key: key, secret } = expectCreated(answer);
    expect(secret).toMatch(/^chs_live_[A-Za-z0-9_-]{43}$/);
    expect(key).toEqual({
      id: expect.stringMatching(ULID),
      object: 'api_key',
      name: 'Helpdesk integration',
      prefix: secret!.slice(0, 15),
      scopes: ['requests:read', 'requests:write'],
      client: { id: clientId, name: 'Acme Ltd' },
      allowlist: ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32'],
      expires_at: expiresAt,
      revoked_at: null,
      created_at: new Date(BASE_TIME).toISOString(),
      last_used_at: null,
      state: 'active',
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');

    // It is a real key: /v1 takes it, as the key the list shows.
    const pinged = await ping(secret!);
    expect(pinged.status, pinged.text).toBe(200);
    expect(pinged.body.key).toMatchObject({ name: 'Helpdesk integration', prefix: key.prefix, client: { id: clientId } });

    // Stored as its hash only: the table holds the hash and nowhere the key itself.
    const items = await scanTable(service);
    const stored = items.find((item) => item.pk === `APIKEY#${apiKeyHash(secret!)}`);
    expect(stored).toMatchObject({ id: key.id, hash: apiKeyHash(secret!), prefix: key.prefix });
    expect(JSON.stringify(items)).not.toContain(secret);
    expect(JSON.stringify(items)).not.toContain(secret!.slice(15));

    const [entry] = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'api_key.created' && e.data.details.key_id === key.id);
    expect(entry.actor).toMatchObject({ type: 'member', label: adminName });
    expect(entry.data.actor).toEqual({ type: 'member', label: adminName });
    expect(entry.data.details).toEqual({
      key_id: key.id,
      name: 'Helpdesk integration',
      prefix: key.prefix,
      scopes: ['requests:read', 'requests:write'],
      client_id: clientId,
      allowlist: key.allowlist,
      expires_at: expiresAt,
    });
    expect(JSON.stringify(entry)).not.toContain(secret);
  });

  it('replays the same Idempotency-Key and body with the same key and the secret null, creating nothing more', async () => {
    const body = { name: 'Replayed key', scopes: ['events:read'] };
    const first = expectCreated(await create(owner, body, `replay-${BASE_TIME}`));
    const before = (await listed()).data.length;
    const again = await create(owner, body, `replay-${BASE_TIME}`);
    const replay = expectCreated(again);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.secret).toBeNull();
    expect(replay.api_key).toEqual(first.api_key);
    expect((await listed()).data.length).toBe(before);
    // Another body under that Idempotency-Key: refused, nothing made.
    expectError(await create(owner, { ...body, name: 'Another' }, `replay-${BASE_TIME}`), 422, 'idempotency_key_reused');
  });

  it('refuses by field: a bad CIDR, an unknown scope, a past expiry, an unknown client, a blank name (nothing created)', async () => {
    const before = (await listed()).data.length;
    const badCidr = await create(admin, { name: 'Fenced', scopes: ['requests:read'], allowlist: ['192.0.2.0/24', '10.0.0.0/33'] });
    expectError(badCidr, 422, 'validation_failed', ['allowlist']);
    expect(badCidr.body.errors.allowlist).toEqual(['"10.0.0.0/33" is not an IP address or CIDR block (for example 203.0.113.7, 198.51.100.0/24 or 2001:db8::/32).']);

    const badScope = await create(admin, { name: 'Wide', scopes: ['requests:read', 'admin:everything'] });
    expectError(badScope, 422, 'validation_failed', ['scopes']);
    expect(badScope.body.errors.scopes[0]).toContain('"admin:everything"');

    const past = await create(admin, { name: 'Late', scopes: ['requests:read'], expires_at: new Date(BASE_TIME - 60_000).toISOString() });
    expectError(past, 422, 'validation_failed', ['expires_at']);
    expect(past.body.errors.expires_at).toEqual(['Must be in the future.']);

    expectError(await create(admin, { name: 'None', scopes: [] }), 422, 'validation_failed', ['scopes']);
    expectError(await create(admin, { name: ' ', scopes: ['requests:read'] }), 422, 'validation_failed', ['name']);
    expectError(await create(admin, { name: 'Elsewhere', scopes: ['requests:read'], client_id: '01hzzzzzzzzzzzzzzzzzzzzzzz' }), 422, 'validation_failed', ['client_id']);
    expectError(await create(admin, { name: 'Odd', scopes: ['requests:read'], expires_at: 'next week' }), 422, 'validation_failed', ['expires_at']);
    // Blank is never read as the widest setting: an allowlist of blanks is not "any address", a blank expiry not "never".
    const blanks = await create(admin, { name: 'Blank', scopes: ['requests:read'], allowlist: ['', ' '], expires_at: '' });
    expectError(blanks, 422, 'validation_failed', ['allowlist', 'expires_at']);
    expect(blanks.body.errors.allowlist).toEqual(['Entries must not be blank.']);
    expectError(await create(admin, { name: 'Extra', scopes: ['requests:read'], hash: 'x' }), 422, 'validation_failed', ['hash']);
    expect((await listed()).data.length).toBe(before);
  });

  it('is the operator CLI’s rule: the CLI refuses the same entry with the same words', async () => {
    const cli = await runAdminCli(service.deps.tableName, 'create-key', ['--org', org.orgId, '--name', 'Fenced', '--scopes', 'requests:read', '--allow', '192.0.2.0/24,10.0.0.0/33']);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stderr).toContain('allowlist: "10.0.0.0/33" is not an IP address or CIDR block');
    const unknownScope = await runAdminCli(service.deps.tableName, 'create-key', ['--org', org.orgId, '--name', 'Wide', '--scopes', 'admin:everything']);
    expect(unknownScope.code).toBe(1);
    expect(unknownScope.stderr).toContain('scopes: Unknown scope "admin:everything"');

    // What the CLI prints of a key is what the application shows of it: the same fields, in snake_case, never the hash.
    const made = await runAdminCli(service.deps.tableName, 'create-key', ['--org', org.orgId, '--name', 'From the CLI', '--scopes', 'requests:read', '--client', org.defaultClientId]);
    expect(made.code, made.stderr).toBe(0);
    const printed = JSON.parse(made.stdout);
    expect(Object.keys(printed).sort()).toEqual(['key', 'note', ...KEY_FIELDS].sort());
    expect(printed).toMatchObject({ object: 'api_key', name: 'From the CLI', state: 'active', client: { id: org.defaultClientId, name: expect.any(String) } });
    const keysListed = await runAdminCli(service.deps.tableName, 'list-keys', ['--org', org.orgId]);
    expect(keysListed.code, keysListed.stderr).toBe(0);
    const shown = (JSON.parse(keysListed.stdout) as Array<Record<string, unknown>>).find((key) => key.id === printed.id)!;
    expect(shown).toEqual((await listed()).data.find((key) => key.id === printed.id));
  }, 60_000);

  it('needs the CSRF header', async () => {
    const answer = await admin.call('POST', '/app/api/keys', { body: { name: 'No CSRF', scopes: ['requests:read'] }, csrf: false });
    expectError(answer, 403, 'forbidden');
  });
});

describe('owners and admins only', () => {
  it('answers 403 to a plain member on every API keys endpoint', async () => {
    const { api_key: key } = expectCreated(await create(owner, { name: 'Not for Tom', scopes: ['requests:read'] }));
    expectError(await plain.call('GET', '/app/api/keys'), 403, 'forbidden');
    expectError(await create(plain, { name: 'Tom key', scopes: ['requests:read'] }), 403, 'forbidden');
    expectError(await plain.call('POST', `/app/api/keys/${key.id}/revoke`), 403, 'forbidden');
    expect((await listed()).data.find((k) => k.id === key.id)?.state).toBe('active');
    expect((await listed()).data.some((k) => k.name === 'Tom key')).toBe(false);
  });

  it('answers 401 without a session', async () => {
    expectError(await service.call('GET', '/app/api/keys'), 401, 'unauthenticated');
  });
});

describe('GET /app/api/keys', () => {
  it('lists the organisation’s keys newest first, with state, the scopes and clients the form offers, never a secret or hash', async () => {
    const expiring = expectCreated(await create(admin, { name: 'Short-lived', scopes: ['tickets:write'], expires_at: new Date(BASE_TIME + HOUR).toISOString() }));
    expect((await ping(expiring.secret!)).status).toBe(200);
    const body = await listed();
    expectKeys(body, ['data', 'scopes', 'clients', 'api_access'], 'list');
    expect(body.scopes).toEqual([...SCOPES]);
    expect(body.clients.map((c) => c.name)).toEqual(['Acme Ltd', 'Keys Org (internal)']);
    expect(body.api_access).toBe(true);
    body.data.forEach((key, i) => expectKeys(key, KEY_FIELDS, `data[${i}]`));
    const created = body.data.map((k) => k.created_at as string);
    expect([...created].sort().reverse()).toEqual(created);
    // The organisation's own key from the test set-up, made by the operator CLI's path, is listed too.
    expect(body.data.some((k) => k.name === 'All scopes' && k.state === 'active')).toBe(true);
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/chs_live_[A-Za-z0-9_-]{43}/);
    expect(text).not.toMatch(/[0-9a-f]{64}/);

    // Expired from the moment of its expiry: listed as expired, refused by /v1.
    clock.set(BASE_TIME + 2 * HOUR);
    expect((await listed()).data.find((k) => k.id === expiring.api_key.id)?.state).toBe('expired');
    expectError(await ping(expiring.secret!), 401, 'unauthenticated');
  });

  it('shows when a key was last used, to the hour: null until its first call, then written at most once an hour', async () => {
    const made = expectCreated(await create(admin, { name: 'Last used', scopes: ['requests:read'] }));
    const lastUsed = async () => (await listed()).data.find((k) => k.id === made.api_key.id)?.last_used_at;
    const stored = async () => (await scanTable(service)).find((item) => item.pk === `APIKEY#${apiKeyHash(made.secret!)}`)?.lastUsedAt;
    expect(made.api_key.last_used_at).toBeNull();
    expect(await lastUsed()).toBeNull();

    expect((await ping(made.secret!)).status).toBe(200);
    const first = new Date(BASE_TIME).toISOString();
    expect(await lastUsed()).toBe(first);
    // Calls within the hour leave it as it is: no write for each call of a busy key.
    clock.set(BASE_TIME + HOUR - 1);
    expect((await ping(made.secret!)).status).toBe(200);
    expect(await stored()).toBe(first);
    // The first call after the hour records it anew.
    clock.set(BASE_TIME + HOUR + 1);
    expect((await ping(made.secret!)).status).toBe(200);
    expect(await lastUsed()).toBe(new Date(BASE_TIME + HOUR + 1).toISOString());
    // A refused key is not "used": a revoked key's last use stays.
    expect((await admin.call('POST', `/app/api/keys/${made.api_key.id}/revoke`)).status).toBe(200);
    clock.set(BASE_TIME + 3 * HOUR);
    expectError(await ping(made.secret!), 401, 'unauthenticated');
    expect(await stored()).toBe(new Date(BASE_TIME + HOUR + 1).toISOString());
  });
});

describe('POST /app/api/keys/{id}/revoke', () => {
  it('revokes (200, audited with the member), the key is refused at once; a second revoke is 409 illegal_transition', async () => {
    const { api_key: key, secret } = expectCreated(await create(owner, { name: 'Soon revoked', scopes: ['requests:read'] }));
    expect((await ping(secret!)).status).toBe(200);

    const revoked = await admin.call('POST', `/app/api/keys/${key.id}/revoke`);
    expect(revoked.status, revoked.text).toBe(200);
    expectKeys(revoked.body, KEY_FIELDS, 'revoked key');
    expect(revoked.body).toMatchObject({ id: key.id, state: 'revoked', revoked_at: new Date(BASE_TIME).toISOString() });
    expectError(await ping(secret!), 401, 'unauthenticated');
    expect((await listed()).data.find((k) => k.id === key.id)).toMatchObject({ state: 'revoked' });

    const [entry] = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'api_key.revoked' && e.data.details.key_id === key.id);
    expect(entry.actor).toMatchObject({ type: 'member', label: adminName });
    expect(entry.data.details).toEqual({ key_id: key.id, name: 'Soon revoked', prefix: key.prefix });

    const again = await owner.call('POST', `/app/api/keys/${key.id}/revoke`);
    expectError(again, 409, 'illegal_transition');
    // The CLI's revoke-key refuses it in the same words.
    const cli = await runAdminCli(service.deps.tableName, 'revoke-key', ['--org', org.orgId, '--key', key.id]);
    expect(cli.code).toBe(1);
    expect(cli.stderr.trim()).toBe(again.body.message);
    expect((await auditEntries(service, org.orgId)).filter((e) => e.type === 'api_key.revoked' && e.data.details.key_id === key.id)).toHaveLength(1);
  }, 60_000);

  it('answers 404 for a key of another organisation or of no such id', async () => {
    const other = await service.createOrganisation({ name: 'Other Keys Org' });
    const [theirs] = await service.admin.apiKeys.listForOrganisation(other.orgId);
    expectError(await admin.call('POST', `/app/api/keys/${theirs.id}/revoke`), 404, 'not_found');
    expectError(await admin.call('POST', '/app/api/keys/01hzzzzzzzzzzzzzzzzzzzzzzz/revoke'), 404, 'not_found');
    expectError(await admin.call('POST', '/app/api/keys/not-an-id/revoke'), 404, 'not_found');
    expect((await ping(other.key)).status).toBe(200);
  });
});
