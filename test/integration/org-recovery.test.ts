/**
 * Organisation recovery (`recover-org`, AdminStore.recoverOrganisation) against DynamoDB Local:
 * the operator's break-glass step makes a member an active owner again (or adds one), with an
 * operator-attested key verified at once, in one transaction with one `org_recovery.used` audit
 * entry. That entry is an event: GET /v1/events shows it and a webhook subscribed to it receives
 * it through the stream fan-out. Also: the refusals leave nothing behind, `disable-member` emits
 * `member.disabled` as an event, and the real CLI answers with its exit code and JSON.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import canonicalize from 'canonicalize';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, type Flags } from '../../bin/admin/commands.ts';
import { runAdminCommand } from '../support/admin-command.ts';
import { toEventObject } from '../../lambdas/core/events.ts';
import { normaliseIdentityKey } from '../../lambdas/core/fingerprint.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { DynamoMemberAccess } from '../../lambdas/store/sessions.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { startReceiver, type Receipt } from '../support/receiver.ts';
import { auditEntries, type AuditItem } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { putSubscription } from '../support/webhooks.ts';

const GENESIS = '0'.repeat(64);
const REASON = 'Sole owner left the company; confirmed by the CFO on a call (ticket OPS-4711)';
const scratch = mkdtempSync(join(tmpdir(), 'org-recovery-'));

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

interface Org extends TestOrganisation {
  events: string;
}

const newOrg = async (name: string): Promise<Org> => {
  const org = await service.createOrganisation({ name });
  return { ...org, events: await service.createKey(org.orgId, { scopes: ['events:read'], name: `${name} events` }) };
};

/** A fresh P-256 key pair: the public half in a PEM file for --public-key, and as the service stores it. */
const publicKeyFile = () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const file = join(scratch, `${newId()}.pem`);
  writeFileSync(file, pem);
  return { file, pem, ...normaliseIdentityKey(pem) };
};

const run = (command: string, flags: Flags) => runAdminCommand(service, command, flags);

const item = async (pk: string, sk: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk, sk }, ConsistentRead: true }))).Item as
    | Record<string, any>
    | undefined;

const memberItem = (orgId: string, memberId: string) => item(`ORG#${orgId}`, `MEMBER#${memberId}`);

/** Every item under the organisation's partition and under the email's login partition. */
const orgItems = async (orgId: string, email?: string) => {
  const query = async (pk: string) =>
    (
      await service.deps.db.send(
        new QueryCommand({
          TableName: service.deps.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  return [...(await query(`ORG#${orgId}`)), ...(email ? await query(`LOGIN#${email.toLowerCase()}`) : [])];
};

/**
 * The organisation's whole chain: 1..N in order, each prevHash the previous hash, each hash the
 * SHA-256 of the entry's canonical JSON without it, and the head at N with the last hash.
 */
const verifyChain = async (orgId: string) => {
  const items = await auditEntries(service, orgId);
  expect(items.length).toBeGreaterThan(0);
  items.forEach((entry, index) => {
    expect(entry.seq, `entry ${index}`).toBe(index + 1);
    expect(entry.prevHash, `prevHash of ${entry.seq}`).toBe(index === 0 ? GENESIS : items[index - 1]!.hash);
    const { pk: _pk, sk: _sk, kind: _kind, hash, ...unsigned } = entry;
    expect(sha256Hex(canonicalize(unsigned)!), `hash of ${entry.seq}`).toBe(hash);
  });
  expect(await item(`AUDIT#${orgId}`, 'HEAD')).toMatchObject({ n: items.length, hash: items[items.length - 1]!.hash });
  return items;
};

const asEntry = ({ pk: _pk, sk: _sk, kind: _kind, ...entry }: AuditItem) => entry as unknown as AuditEntry;

const feed = async (key: string, query: string) => {
  const answer = await service.call('GET', `/events${query}`, { key });
  expect(answer.status, answer.text).toBe(200);
  return answer;
};

const expectNoKeyMaterial = (text: string, ...keys: Array<{ publicKey: string; pem?: string }>) => {
  expect(text).not.toMatch(/BEGIN|PRIVATE|publicKey|public_key/);
  for (const key of keys) expect(text).not.toContain(key.publicKey);
};

describe('recover-org: an existing member', () => {
  let org: Org;
  let newKey: ReturnType<typeof publicKeyFile>;
  let output: any;
  let before: AuditItem[];
  let oldKey: Record<string, any>;

  beforeAll(async () => {
    org = await newOrg('Recovery Org');
    // The owner has left and the technician was disabled too: nobody who can get in is left.
    await run('disable-member', { org: org.orgId, member: org.owner.email });
    await run('disable-member', { org: org.orgId, member: org.member.email });
    oldKey = (await memberItem(org.orgId, org.member.id))!.identityKey;
    before = await verifyChain(org.orgId);
    newKey = publicKeyFile();
    output = await run('recover-org', { org: org.orgId, email: org.member.email.toUpperCase(), reason: REASON, 'public-key': newKey.file });
  });

  it('makes the disabled member an active owner whose new key is verified at once, replacing the old one', async () => {
    const stored = await memberItem(org.orgId, org.member.id);
    expect(stored).toMatchObject({ id: org.member.id, email: org.member.email, name: org.member.name, role: 'owner', active: true });
    expect(stored!.identityKey).toEqual({
      publicKey: newKey.publicKey,
      fingerprint: newKey.fingerprint,
      state: 'verified',
      registeredAt: expect.any(String),
    });
    expect(stored!.identityKey.fingerprint).not.toBe(oldKey.fingerprint);
    // Only the recovered member changed: no new member, the departed owner stays disabled.
    const members = (await orgItems(org.orgId)).filter((i) => i.kind === 'member');
    expect(members.map((m) => m.id).sort()).toEqual([org.owner.id, org.member.id].sort());
    expect(await memberItem(org.orgId, org.owner.id)).toMatchObject({ role: 'owner', active: false });
  });

  it('answers what it did, with the event id and no key', () => {
    expect(output).toEqual({
      recovered: true,
      organisation_id: org.orgId,
      created_member: false,
      member: {
        membership_id: org.member.id,
        name: org.member.name,
        email: org.member.email,
        role: 'owner',
        active: true,
        // A public key given by --public-key is the member's own (its private half is theirs).
        identity_key: { fingerprint: newKey.fingerprint, state: 'verified', made_by: 'member' },
      },
      event: { id: `evt_${before.length + 1}`, type: 'org_recovery.used', occurred_at: expect.any(String) },
    });
    expectNoKeyMaterial(JSON.stringify(output), newKey);
  });

  it('appends exactly one org_recovery.used entry to the intact chain, with the reason and the fingerprint but no key', async () => {
    const after = await verifyChain(org.orgId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toHaveLength(before.length + 1);
    const entry = after[after.length - 1]!;
    expect(entry.type).toBe('org_recovery.used');
    expect(entry.actor).toEqual({ type: 'system', label: 'operator' });
    expect(entry.clientId).toBeNull();
    expect(entry.requestId).toBeNull();
    expect(entry.data).toEqual({
      member: { membership_id: org.member.id, name: org.member.name, email: org.member.email },
      actor: { type: 'system', label: 'operator' },
      details: { reason: REASON, role: 'owner', created_member: false, key_fingerprint: newKey.fingerprint },
    });
    expectNoKeyMaterial(JSON.stringify(entry), newKey, { publicKey: oldKey.publicKey });
  });

  it('is in GET /v1/events as an Event object, after the member.disabled events', async () => {
    const stored = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'org_recovery.used').map(asEntry);
    const answer = await feed(org.events, '?types=org_recovery.used');
    expect(answer.body.data).toHaveLength(1);
    const event = answer.body.data[0];
    expect(event).toEqual(toEventObject(stored[0]!));
    expect(Object.keys(event)).toEqual(['id', 'object', 'type', 'occurred_at', 'organisation_id', 'client_id', 'seq', 'data']);
    expect(event).toMatchObject({ id: `evt_${stored[0]!.seq}`, object: 'event', type: 'org_recovery.used', organisation_id: org.orgId, client_id: null });
    expect(event.data).toEqual({
      member: { email: org.member.email, membership_id: org.member.id, name: org.member.name },
      details: { created_member: false, key_fingerprint: newKey.fingerprint, reason: REASON, role: 'owner' },
      actor: { type: 'system', label: 'operator' },
    });
    expectNoKeyMaterial(answer.text, newKey);

    const all = await feed(org.events, '');
    expect(all.body.data.map((e: any) => e.type)).toEqual(['member.disabled', 'member.disabled', 'org_recovery.used']);
  });

  it('recovers without a key flag: the member keeps their key and the details say key_fingerprint null', async () => {
    await run('disable-member', { org: org.orgId, member: org.member.email });
    const recovered = await run('recover-org', { org: org.orgId, email: org.member.email, reason: 'Disabled by mistake during offboarding' });
    expect(recovered.member.identity_key).toEqual({ fingerprint: newKey.fingerprint, state: 'verified', made_by: 'member' });
    expect(await memberItem(org.orgId, org.member.id)).toMatchObject({ role: 'owner', active: true, identityKey: { publicKey: newKey.publicKey, state: 'verified' } });
    const entries = await verifyChain(org.orgId);
    expect(entries[entries.length - 1]!.data.details).toEqual({
      reason: 'Disabled by mistake during offboarding',
      role: 'owner',
      created_member: false,
      key_fingerprint: null,
    });
  });
});

describe('recover-org: a new owner', () => {
  it('adds an active owner with a verified generated key and the same email index items add-member writes', async () => {
    const org = await newOrg('Lost Mailbox Org');
    const email = `new-owner-${newId().slice(-8)}@example.com`;
    const privateKeyFile = join(scratch, `${newId()}-private.pem`);
    const before = await verifyChain(org.orgId);

    const output = await run('recover-org', {
      org: org.orgId,
      email: email.replace('new-owner', 'New-Owner'),
      name: 'Nadia Newowner',
      reason: 'Owner mailbox deleted by the mail provider; identity checked by video call',
      'generate-key': privateKeyFile,
    });

    const generated = normaliseIdentityKey(createPublicKey(readFileSync(privateKeyFile, 'utf8')).export({ format: 'pem', type: 'spki' }).toString());
    expect(statSync(privateKeyFile).mode & 0o777).toBe(0o600);
    expect(output).toMatchObject({
      recovered: true,
      organisation_id: org.orgId,
      created_member: true,
      // Printed as add-member and list-members show a key the operator made: made_by operator.
      member: { name: 'Nadia Newowner', email, role: 'owner', active: true, identity_key: { fingerprint: generated.fingerprint, state: 'verified', made_by: 'operator' } },
      event: { id: `evt_${before.length + 1}`, type: 'org_recovery.used' },
    });
    const memberId: string = output.member.membership_id;
    expect(memberId).toMatch(/^[0-9a-z]{26}$/);

    expect(await memberItem(org.orgId, memberId)).toEqual({
      pk: `ORG#${org.orgId}`,
      sk: `MEMBER#${memberId}`,
      kind: 'member',
      id: memberId,
      orgId: org.orgId,
      name: 'Nadia Newowner',
      email,
      role: 'owner',
      active: true,
      identityKey: { publicKey: generated.publicKey, fingerprint: generated.fingerprint, state: 'verified', registeredAt: expect.any(String), madeBy: 'operator' },
      createdAt: expect.any(String),
    });
    expect(await item(`ORG#${org.orgId}`, `EMAIL#${email}`)).toEqual({ pk: `ORG#${org.orgId}`, sk: `EMAIL#${email}`, kind: 'member_email', memberId });
    expect(await item(`LOGIN#${email}`, `MEMBER#${org.orgId}#${memberId}`)).toEqual({
      pk: `LOGIN#${email}`,
      sk: `MEMBER#${org.orgId}#${memberId}`,
      kind: 'login_membership',
      orgId: org.orgId,
      memberId,
    });
    // The same shape as the index items of the owner add-member wrote.
    const strip = (i: Record<string, any> | undefined, id: string, mail: string) =>
      JSON.parse(JSON.stringify(i).replaceAll(id, 'ID').replaceAll(mail, 'EMAIL'));
    expect(strip(await item(`ORG#${org.orgId}`, `EMAIL#${email}`), memberId, email)).toEqual(
      strip(await item(`ORG#${org.orgId}`, `EMAIL#${org.owner.email}`), org.owner.id, org.owner.email),
    );
    expect(strip(await item(`LOGIN#${email}`, `MEMBER#${org.orgId}#${memberId}`), memberId, email)).toEqual(
      strip(await item(`LOGIN#${org.owner.email}`, `MEMBER#${org.orgId}#${org.owner.id}`), org.owner.id, org.owner.email),
    );
    // Sign-in finds the new membership by email.
    expect(await new DynamoMemberAccess(service.deps.db, service.deps.tableName).membershipsOf(email)).toEqual([{ orgId: org.orgId, memberId }]);

    const after = await verifyChain(org.orgId);
    expect(after).toHaveLength(before.length + 1);
    const entry = after[after.length - 1]!;
    expect(entry.type).toBe('org_recovery.used');
    expect(entry.data).toEqual({
      member: { membership_id: memberId, name: 'Nadia Newowner', email },
      actor: { type: 'system', label: 'operator' },
      details: {
        reason: 'Owner mailbox deleted by the mail provider; identity checked by video call',
        role: 'owner',
        created_member: true,
        key_fingerprint: generated.fingerprint,
      },
    });
    // One entry, not a member.added beside it.
    expect(after.filter((e) => e.type === 'member.added')).toHaveLength(2);
    expectNoKeyMaterial(JSON.stringify(entry), generated);

    const events = await feed(org.events, '?types=org_recovery.used');
    expect(events.body.data).toEqual([toEventObject(asEntry(entry))]);
    expect(events.body.data[0].data.member).toEqual({ email, membership_id: memberId, name: 'Nadia Newowner' });
    expect(events.body.data[0].data.details).toMatchObject({ created_member: true, key_fingerprint: generated.fingerprint });
    expectNoKeyMaterial(events.text, generated);
  });

  it('adds a new owner without a key: identity key null, key_fingerprint null', async () => {
    const org = await newOrg('Keyless Recovery Org');
    const email = `keyless-${newId().slice(-8)}@example.com`;
    const output = await run('recover-org', { org: org.orgId, email, name: 'Kim Keyless', reason: 'Owner lost their laptop and key backup' });
    expect(output.member.identity_key).toBeNull();
    expect(await memberItem(org.orgId, output.member.membership_id)).toMatchObject({ role: 'owner', active: true, identityKey: null });
    const entries = await verifyChain(org.orgId);
    expect(entries[entries.length - 1]!.data.details).toEqual({
      reason: 'Owner lost their laptop and key backup',
      role: 'owner',
      created_member: true,
      key_fingerprint: null,
    });
  });
});

describe('recover-org: refusals', () => {
  let org: Org;
  beforeAll(async () => {
    org = await newOrg('Refusal Org');
    await run('disable-member', { org: org.orgId, member: org.member.email });
  });

  const refused = async (flags: Flags, message: RegExp, kind: 'usage' | 'store' = 'store') => {
    const chain = await auditEntries(service, org.orgId);
    const items = await orgItems(org.orgId, typeof flags.email === 'string' ? flags.email : undefined);
    const error = await run('recover-org', flags).then(
      () => null,
      (e: Error) => e,
    );
    expect(error, 'refused').toBeInstanceOf(Error);
    expect(error!.message).toMatch(message);
    expect(error instanceof UsageError).toBe(kind === 'usage');
    // Nothing written: no audit entry, no member change, no index item.
    expect(await auditEntries(service, org.orgId)).toEqual(chain);
    expect(await orgItems(org.orgId, typeof flags.email === 'string' ? flags.email : undefined)).toEqual(items);
  };

  it('refuses an unknown organisation', async () => {
    const error = await run('recover-org', { org: newId(), email: org.member.email, name: 'X Y', reason: REASON }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^no organisation [0-9a-z]{26}$/);
  });

  it('refuses a reason shorter than 10 characters, counted without surrounding blanks', async () => {
    await refused({ org: org.orgId, email: org.member.email, reason: 'forgot' }, /reason must be at least 10 characters/);
    await refused({ org: org.orgId, email: org.member.email, reason: '   123456789    ' }, /reason must be at least 10 characters/);
    await refused({ org: org.orgId, email: org.member.email }, /^--reason is required$/, 'usage');
    expect(await memberItem(org.orgId, org.member.id)).toMatchObject({ role: 'member', active: false });
  });

  it('refuses a new email without --name', async () => {
    const email = `nobody-${newId().slice(-8)}@example.com`;
    await refused({ org: org.orgId, email, reason: REASON }, /has no member with the email .*: a name is needed/);
    await refused({ org: org.orgId, email, reason: REASON, name: '   ' }, /a name is needed/);
    expect(await item(`ORG#${org.orgId}`, `EMAIL#${email}`)).toBeUndefined();
  });

  it('refuses both key flags, and a missing --org or --email', async () => {
    await refused({ org: org.orgId, email: org.member.email, reason: REASON, 'public-key': 'a.pem', 'generate-key': 'b.pem' }, /either --public-key or --generate-key/, 'usage');
    await refused({ email: org.member.email, reason: REASON }, /^--org is required$/, 'usage');
    await refused({ org: org.orgId, reason: REASON }, /^--email is required$/, 'usage');
  });

  it('accepts a reason of exactly 10 characters', async () => {
    const output = await run('recover-org', { org: org.orgId, email: org.member.email, reason: '1234567890' });
    expect(output.member).toMatchObject({ role: 'owner', active: true });
  });
});

describe('disable-member', () => {
  it('emits member.disabled as an event in GET /v1/events', async () => {
    const org = await newOrg('Disable Org');
    expect(await run('disable-member', { org: org.orgId, member: org.member.email })).toMatchObject({ membership_id: org.member.id, active: false });
    expect(await memberItem(org.orgId, org.member.id)).toMatchObject({ active: false });
    const entries = await verifyChain(org.orgId);
    const entry = entries[entries.length - 1]!;
    expect(entry.type).toBe('member.disabled');

    const answer = await feed(org.events, '?types=member.disabled');
    expect(answer.body.data).toEqual([toEventObject(asEntry(entry))]);
    expect(answer.body.data[0]).toMatchObject({
      id: `evt_${entry.seq}`,
      object: 'event',
      type: 'member.disabled',
      organisation_id: org.orgId,
      client_id: null,
      data: {
        member: { email: org.member.email, membership_id: org.member.id, name: org.member.name },
        details: {},
        actor: { type: 'system', label: 'operator' },
      },
    });
  });

  it('leaves a member who is already disabled alone: no second member.disabled', async () => {
    const org = await newOrg('Disable Twice Org');
    await run('disable-member', { org: org.orgId, member: org.member.email });
    await run('disable-member', { org: org.orgId, member: org.member.email });
    expect((await verifyChain(org.orgId)).filter((entry) => entry.type === 'member.disabled')).toHaveLength(1);
  });
});

describe('the real CLI', () => {
  // A deployed table's recovery names the application's address: it works out the member's requests' flags again.
  const cli = (args: string[]) => runAdminCli(service.deps.tableName, 'recover-org', [...args, '--app-url', 'https://handoff.example.com'], { DATA_DIR: scratch });

  it('recovers with exit code 0 and prints the result as JSON; refuses with exit code 1 and a message', async () => {
    const org = await newOrg('CLI Recovery Org');
    await service.admin.setMemberActive(org.orgId, org.owner.id, false);
    const key = publicKeyFile();

    const short = await cli(['--org', org.orgId, '--email', org.owner.email, '--reason', 'too short']);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/reason must be at least 10 characters/);
    expect(short.stdout).toBe('');

    const unknown = await cli(['--org', newId(), '--email', org.owner.email, '--reason', REASON]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no organisation/);

    const nameless = await cli(['--org', org.orgId, '--email', 'stranger@example.com', '--reason', REASON]);
    expect(nameless.code).toBe(1);
    expect(nameless.stderr).toMatch(/a name is needed/);

    const done = await cli(['--org', org.orgId, '--email', org.owner.email, '--reason', REASON, '--public-key', key.file]);
    expect(done.code, done.stderr).toBe(0);
    const output = JSON.parse(done.stdout);
    expect(output).toMatchObject({
      recovered: true,
      organisation_id: org.orgId,
      created_member: false,
      member: { membership_id: org.owner.id, role: 'owner', active: true, identity_key: { fingerprint: key.fingerprint, state: 'verified' } },
      event: { type: 'org_recovery.used' },
    });
    expectNoKeyMaterial(done.stdout, key);
    expect(await memberItem(org.orgId, org.owner.id)).toMatchObject({ active: true, identityKey: { publicKey: key.publicKey, state: 'verified' } });

    // Written by another process, the entry still extends the one chain and reaches the feed.
    const entries = await verifyChain(org.orgId);
    expect(entries.filter((e) => e.type === 'org_recovery.used')).toHaveLength(1);
    const events = await feed(org.events, '?types=org_recovery.used');
    expect(events.body.data.map((e: any) => e.id)).toEqual([output.event.id]);
  });
});

describe('webhooks', () => {
  let hooked: TestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let receiverUrl: string;
  let received: Receipt[];

  beforeAll(async () => {
    hooked = await startTestService({ webhooks: true, allowLoopbackWebhooks: true });
    receiver = await startReceiver();
    receiverUrl = receiver.url;
    received = receiver.receipts;
  });
  afterAll(async () => {
    await hooked?.stop();
    await receiver?.close();
  });

  it('delivers org_recovery.used to a subscription for it (body as GET /v1/events has it), and not to others', async () => {
    const org = await hooked.createOrganisation({ name: 'Hooked Recovery Org' });
    const subscribed = await putSubscription(hooked, org.orgId, { url: `${receiverUrl}/recovery`, events: ['org_recovery.used'] });
    await putSubscription(hooked, org.orgId, { url: `${receiverUrl}/other`, events: ['member.disabled', 'request.created'] });
    await hooked.admin.setMemberActive(org.orgId, org.owner.id, false);
    await hooked.admin.recoverOrganisation({ orgId: org.orgId, email: org.owner.email, reason: REASON });

    const until = Date.now() + 20_000;
    while (!received.some((r) => r.path === '/recovery') || !received.some((r) => r.path === '/other')) {
      if (Date.now() > until) throw new Error(`timed out waiting for deliveries (got ${received.map((r) => r.path).join(', ')})`);
      await new Promise((done) => setTimeout(done, 100));
    }
    const deliveries = received.filter((r) => r.path === '/recovery');
    expect(deliveries).toHaveLength(1);
    const delivery = deliveries[0]!;
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    const payload = new Webhook(subscribed.secrets[0]!.secret).verify(delivery.body, headers) as Record<string, any>;
    expect(headers['x-service-event']).toBe('org_recovery.used');
    expect(payload).toMatchObject({
      type: 'org_recovery.used',
      organisation_id: org.orgId,
      data: {
        member: { membership_id: org.owner.id, email: org.owner.email },
        actor: { type: 'system', label: 'operator' },
        details: { reason: REASON, role: 'owner', created_member: false, key_fingerprint: null },
      },
    });
    const key = await hooked.createKey(org.orgId, { scopes: ['events:read'] });
    const feedAnswer = await hooked.call('GET', '/events?types=org_recovery.used', { key });
    expect(feedAnswer.text).toContain(delivery.body);
    // The other subscription got member.disabled only.
    expect(received.filter((r) => r.path === '/other').map((r) => r.headers['x-service-event'])).toEqual(['member.disabled']);
  });
});
