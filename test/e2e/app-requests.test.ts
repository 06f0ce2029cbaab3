/**
 * The member application's request endpoints over real HTTP (docs/web-api.md, Member endpoints):
 * listing, detail with audit trail, reveal of a really sealed envelope (opened here with the
 * member's own private key, as the browser does), and completion with purge.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUE_FOR_DESTRUCTION } from '../../lambdas/core/use-cases/member-requests.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { submit } from '../../lambdas/core/subject-flow.ts';
import { open, openAttachment, seal, sealAttachment, type Envelope, type SealedAttachment } from '../../web/crypto/envelope.ts';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectError, expectRequest, materialItems, type RequestObject } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const KEY_NAME = 'Helpdesk integration';
const SECRET = 'correct horse battery staple — the firewall admin password';

let service: TestService;
let org: TestOrganisation;
let apiKey: string;

/** A member whose key pair was made here, as their browser would make it. */
interface KeyedMember {
  id: string;
  name: string;
  email: string;
  browser: MemberBrowser;
  privateKey: CryptoKey;
  publicKey: string;
  fingerprint: string;
}

let rita: KeyedMember; // recipient and requester
let ravi: KeyedMember; // second recipient
let owner: MemberBrowser; // owner, not a recipient
let tom: MemberBrowser; // plain member, not involved

const keyedMember = async (name: string): Promise<KeyedMember> => {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${org.orgId.slice(-6)}@example.com`;
  const member = await service.admin.addMember({ orgId: org.orgId, name, email, role: 'member' });
  const browser = await MemberBrowser.signIn(service, email);
  const pair = await generateIdentityPair();
  const publicKey = await exportPublicKey(pair.publicKey);
  const registered = await browser.call('POST', '/app/api/identity-key', { body: { public_key: publicKey } });
  expect(registered.status, registered.text).toBe(200);
  expect(registered.body.state).toBe('verified');
  return { id: member.id, name, email, browser, privateKey: pair.privateKey, publicKey, fingerprint: await fingerprintOf(publicKey) };
};

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Reveal Org' });
  apiKey = await service.createKey(org.orgId, { name: KEY_NAME, scopes: ['requests:read', 'requests:write'] });
  rita = await keyedMember('Rita Recipient');
  ravi = await keyedMember('Ravi Recipient');
  owner = await MemberBrowser.signIn(service, org.owner.email);
  tom = await MemberBrowser.signIn(service, org.member.email);
});
afterAll(() => service?.stop());

const createRequest = async (recipients: string[] = [rita.email, ravi.email]): Promise<RequestObject> => {
  const answer = await service.call('POST', '/requests', {
    key: apiKey,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password, please', recipients },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.request;
};

/** What the subject's browser does: seal to the recipients' keys; stored through the repository. */
const submitSealed = async (requestId: string, recipients: KeyedMember[]) => {
  const { envelope, contentKey } = await seal(
    SECRET,
    recipients.map((r) => ({ membershipId: r.id, fingerprint: r.fingerprint, publicKey: r.publicKey })),
    requestId,
  );
  const attachment = await sealAttachment(
    contentKey,
    { name: 'notes.txt', type: 'text/plain', bytes: new TextEncoder().encode('admin / vlan 42') as Uint8Array<ArrayBuffer> },
    requestId,
    { index: 0, count: 1 },
  );
  const before = (await service.deps.requests.get(requestId))!;
  const after = submit(before, service.deps.clock.now(), 1);
  const actor = { type: 'subject' as const, label: before.subject.name };
  await service.deps.requests.submit(before, after, { envelope, attachments: [attachment] }, {
    orgId: org.orgId,
    type: 'request.submitted',
    actor,
    clientId: after.client.id,
    requestId,
    data: { request: toRequestView(after, service.deps.urls), actor, details: { attachments: 1 } },
  });
  return { envelope, attachment };
};

const submittedRequest = async () => {
  const request = await createRequest();
  const sealed = await submitSealed(request.id, [rita, ravi]);
  return { request, ...sealed };
};

const scanAll = () => scanTable(service);

describe('GET /app/api/requests', () => {
  it("lists the organisation's requests the member requested or receives, newest first", async () => {
    const forBoth = await createRequest();
    const forRavi = await createRequest([ravi.email]);
    const forOwner = await createRequest([org.owner.email]);

    const ritas = await rita.browser.call('GET', '/app/api/requests');
    expect(ritas.status).toBe(200);
    expect(Object.keys(ritas.body)).toEqual(['data']);
    const ids = ritas.body.data.map((r: RequestObject) => r.id);
    expect(ids).toContain(forBoth.id);
    expect(ids).not.toContain(forRavi.id);
    expect(ids).not.toContain(forOwner.id);
    // Each row is SPEC.md's Request and whether its subject reported it (none has been).
    ritas.body.data.forEach(({ reported, ...request }: { reported: unknown }, i: number) => {
      expect(reported, `data[${i}].reported`).toBe(false);
      expectRequest(request, `data[${i}]`);
    });
    expect([...ids].sort().reverse()).toEqual(ids);

    const ravis = (await ravi.browser.call('GET', '/app/api/requests')).body.data.map((r: RequestObject) => r.id);
    expect(ravis.slice(0, 2)).toEqual([forRavi.id, forBoth.id]);
    // An owner lists only their own requests too; a member in none of them lists none of these.
    const owners = (await owner.call('GET', '/app/api/requests')).body.data.map((r: RequestObject) => r.id);
    expect(owners).toContain(forOwner.id);
    expect(owners).not.toContain(forBoth.id);
    const toms = (await tom.call('GET', '/app/api/requests')).body.data.map((r: RequestObject) => r.id);
    expect(toms).not.toContain(forBoth.id);
  });

  it('answers 401 without a session', async () => {
    expectError(await service.call('GET', '/app/api/requests'), 401, 'unauthenticated');
  });
});

describe('GET /app/api/requests/{id}', () => {
  it('gives the request and its audit trail to those involved and to owners and admins; 404 to anyone else', async () => {
    const request = await createRequest();
    const detail = await rita.browser.call('GET', `/app/api/requests/${request.id}`);
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body).sort()).toEqual(['audit', 'request', 'your_key']);
    expect(expectRequest(detail.body.request)).toEqual(request);
    // The recipient's key the credential will be sealed to, for their browser to check before a reveal.
    expect(detail.body.your_key).toEqual({ fingerprint: rita.fingerprint, made_by: 'member' });
    expect(detail.body.audit).toEqual([
      {
        seq: expect.any(Number),
        type: 'request.created',
        occurred_at: expect.any(String),
        actor: { type: 'api', label: KEY_NAME },
        details: {},
      },
    ]);
    const ownersView = await owner.call('GET', `/app/api/requests/${request.id}`);
    expect(ownersView.status).toBe(200);
    // An owner who is not a recipient holds no key the credential is sealed to.
    expect(ownersView.body.your_key).toBeNull();
    expectError(await tom.call('GET', `/app/api/requests/${request.id}`), 404, 'not_found');
    expectError(await rita.browser.call('GET', '/app/api/requests/01hzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
    expectError(await rita.browser.call('GET', '/app/api/requests/not-an-id'), 404, 'not_found');
  });

  it('hides a request of another organisation', async () => {
    const other = await service.createOrganisation({ name: 'Other Org' });
    const created = await service.call('POST', '/requests', {
      key: other.key,
      body: { subject_name: 'Jane Doe', justification: 'Another org entirely', recipients: [other.owner.email] },
    });
    expect(created.status).toBe(201);
    expectError(await owner.call('GET', `/app/api/requests/${created.body.request.id}`), 404, 'not_found');
    expectError(await owner.call('POST', `/app/api/requests/${created.body.request.id}/complete`), 404, 'not_found');
  });
});

describe('POST /app/api/requests/{id}/reveal', () => {
  it('hands the sealed envelope to a recipient, who opens it with their own key', async () => {
    const { request, envelope } = await submittedRequest();
    const revealed = await rita.browser.call('POST', `/app/api/requests/${request.id}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    expect(revealed.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(revealed.body).sort()).toEqual(['attachments', 'envelope']);
    expect(revealed.body.envelope).toEqual(envelope);

    const opened = await open(revealed.body.envelope as Envelope, rita.privateKey, rita.fingerprint, request.id);
    expect(opened.plaintext).toBe(SECRET);
    const notes = await openAttachment(opened.contentKey, revealed.body.attachments[0] as SealedAttachment, request.id, { index: 0, count: 1 });
    expect({ ...notes, bytes: new TextDecoder().decode(notes.bytes) }).toEqual({ name: 'notes.txt', type: 'text/plain', bytes: 'admin / vlan 42' });
    // The other recipient opens the same envelope with theirs.
    const forRavi = await ravi.browser.call('POST', `/app/api/requests/${request.id}/reveal`);
    expect((await open(forRavi.body.envelope, ravi.privateKey, ravi.fingerprint, request.id)).plaintext).toBe(SECRET);

    const detail = (await rita.browser.call('GET', `/app/api/requests/${request.id}`)).body;
    expect(detail.request.status).toBe('submitted');
    expect(detail.request.reveal_count).toBe(2);
    expect(Date.parse(detail.request.last_revealed_at)).toBeGreaterThanOrEqual(Date.parse(detail.request.submitted_at));
    const reveals = detail.audit.filter((entry: any) => entry.type === 'request.revealed');
    expect(reveals.map((entry: any) => [entry.actor, entry.details])).toEqual([
      [{ type: 'member', label: 'Rita Recipient' }, { reveal_count: 1 }],
      [{ type: 'member', label: 'Ravi Recipient' }, { reveal_count: 2 }],
    ]);
  });

  it('refuses anyone but a recipient: 403 to an owner who is not one, 404 to a member not involved', async () => {
    const { request } = await submittedRequest();
    expectError(await owner.call('POST', `/app/api/requests/${request.id}/reveal`), 403, 'forbidden');
    expectError(await tom.call('POST', `/app/api/requests/${request.id}/reveal`), 404, 'not_found');
    expectError(await rita.browser.call('POST', `/app/api/requests/${request.id}/reveal`, { csrf: false }), 403, 'forbidden');
    const detail = (await rita.browser.call('GET', `/app/api/requests/${request.id}`)).body;
    expect(detail.request.reveal_count).toBe(0);
    expect(detail.request.last_revealed_at).toBeNull();
  });

  it('answers 409 illegal_transition unless the request is submitted', async () => {
    const pending = await createRequest();
    expectError(await rita.browser.call('POST', `/app/api/requests/${pending.id}/reveal`), 409, 'illegal_transition');
    const revoked = await service.call('POST', `/requests/${pending.id}/revoke`, { key: apiKey });
    expect(revoked.status).toBe(200);
    expectError(await rita.browser.call('POST', `/app/api/requests/${pending.id}/reveal`), 409, 'illegal_transition');
  });

  it('answers 409 once its record_expires_at or purge_scheduled_at has passed, before the worker that destroys it has run', async () => {
    for (const deadline of ['recordExpiresAt', 'purgeScheduledAt']) {
      const { request } = await submittedRequest();
      // The deadline a moment ago; the expiry or purge worker has not run yet, so it is still submitted.
      await service.deps.db.send(
        new UpdateCommand({
          TableName: service.deps.tableName,
          Key: keys.request(request.id),
          UpdateExpression: 'SET #deadline = :past',
          ExpressionAttributeNames: { '#deadline': deadline },
          ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
        }),
      );
      expect((await service.deps.requests.get(request.id))!.status).toBe('submitted');
      const refused = await rita.browser.call('POST', `/app/api/requests/${request.id}/reveal`);
      expectError(refused, 409, 'illegal_transition');
      expect(refused.body.message).toBe(DUE_FOR_DESTRUCTION);
      expect(refused.body).not.toHaveProperty('envelope');
      expect((await rita.browser.call('GET', `/app/api/requests/${request.id}`)).body.request.reveal_count).toBe(0);
    }
  });
});

describe('POST /app/api/requests/{id}/complete', () => {
  it('completes and purges at once, and the trail names each actor', async () => {
    const { request, envelope } = await submittedRequest();
    expect(await materialItems(service, request.id)).toHaveLength(2);
    expect((await rita.browser.call('POST', `/app/api/requests/${request.id}/reveal`)).status).toBe(200);

    const completed = await rita.browser.call('POST', `/app/api/requests/${request.id}/complete`);
    expect(completed.status, completed.text).toBe(200);
    const view = expectRequest(completed.body);
    expect(view.status).toBe('completed');
    expect(view.purge_reason).toBe('completed_by_member');
    expect(view.completed_at).not.toBeNull();
    expect(await materialItems(service, request.id)).toEqual([]);
    // The ciphertext is nowhere in the table any more.
    expect(JSON.stringify(await scanAll())).not.toContain(envelope.ciphertext);

    expectError(await rita.browser.call('POST', `/app/api/requests/${request.id}/reveal`), 409, 'illegal_transition');
    expectError(await rita.browser.call('POST', `/app/api/requests/${request.id}/complete`), 409, 'illegal_transition');

    const trail = (await ravi.browser.call('GET', `/app/api/requests/${request.id}`)).body.audit;
    expect(trail.map((entry: any) => [entry.type, entry.actor.type, entry.actor.label])).toEqual([
      ['request.created', 'api', KEY_NAME],
      ['request.submitted', 'subject', 'Jane Doe'],
      ['request.revealed', 'member', 'Rita Recipient'],
      ['request.completed', 'member', 'Rita Recipient'],
    ]);
    expect(trail.at(-1).details).toEqual({ purge_reason: 'completed_by_member' });
    const seqs = trail.map((entry: any) => entry.seq);
    expect([...seqs].sort((a: number, b: number) => a - b)).toEqual(seqs);
  });

  it('lets an owner who is not a recipient complete; not a member who is not involved', async () => {
    const { request } = await submittedRequest();
    expectError(await tom.call('POST', `/app/api/requests/${request.id}/complete`), 404, 'not_found');
    const completed = await owner.call('POST', `/app/api/requests/${request.id}/complete`);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.status).toBe('completed');
    expect(await materialItems(service, request.id)).toEqual([]);
    const last = (await owner.call('GET', `/app/api/requests/${request.id}`)).body.audit.at(-1);
    expect(last.actor).toEqual({ type: 'member', label: 'Olivia Owner' });
  });

  it('answers 409 for a request that is not submitted', async () => {
    const pending = await createRequest();
    expectError(await rita.browser.call('POST', `/app/api/requests/${pending.id}/complete`), 409, 'illegal_transition');
  });
});
