/**
 * Idempotency-Key on the member application's POSTs (docs/web-api.md, Member endpoints; SPEC.md's
 * idempotency rules), over real HTTP. The route table is walked, so a POST added to it later is held
 * to the same rules with no change here: the same key and body replays the first answer (same
 * status and body, `Idempotency-Replayed: true`, `Cache-Control: no-store`), a call with no body
 * being the call with `{}`; another body answers 422 `idempotency_key_reused`, a key over 200 characters 422 `validation_failed` on the header.
 * Only the three exemptions below differ, each with its reason and its own test. Then the answers
 * that hold secrets (both rotations, a reveal) replay them as null while the first answer's secret
 * keeps working, and one member's or organisation's key never replays another's answer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import canonicalize from 'canonicalize';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { routeList, type Route } from '../../lambdas/http/routes.ts';
import { latestSignInToken, MemberBrowser, requestSignIn, sessionCookieOf, signInEmailsTo, startSession } from '../support/member-browser.ts';
import { startReceiver } from '../support/receiver.ts';
import { auditEntries, expectError } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { scanTable, startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * The member POSTs that take no Idempotency-Key, and why (lambdas/http/app/session-handler.ts,
 * sign-out.ts). Every other member POST must replay.
 */
const EXEMPT: Record<string, string> = {
  appSignIn: 'before sign-in there is no caller to keep a key for; a repeat only sends another link, within the sending limit',
  appSession: 'its answer is the session cookie, a secret no replay may hand out again; its sign-in token works once',
  appSignOut: 'it acts on the session that sends it, and once that session is gone a retry ends as a replay would (401, cookie cleared)',
};

const MEMBER_POSTS = routeList().filter((route) => route.name.startsWith('app') && route.method === 'POST');
const REPLAYING = MEMBER_POSTS.filter((route) => !(route.name in EXEMPT));

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;
let secret = '';
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  service = await startTestService({ allowLoopbackWebhooks: true, webhooks: true });
  org = await service.createOrganisation({ name: 'Replay Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
  // Verifies every delivery with the secret the app showed last (400 when it does not verify).
  receiver = await startReceiver({ secret: () => secret });
});
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

const uniqueKey = (label: string) => `${label}-${newId()}`;
/** A new member of the organisation, so each test has its own sign-in emails and sending window. */
const newMember = async (name: string, role: 'member' | 'admin' = 'member') => {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${newId().slice(-8)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name, email, role });
  return email;
};
const replayed = (answer: ApiAnswer) => answer.headers.get('idempotency-replayed');
/** A route's path with each parameter an id nothing has: the generic walk needs no records of its own. */
const pathOf = (route: Route) => route.path.replace(/\{\w+\}/g, () => newId());
const post = (browser: MemberBrowser, path: string, body: unknown, key?: string) =>
  browser.call('POST', path, { body, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

/** The first answer, then the same call again: the second is the first, replayed. */
const expectReplays = async (browser: MemberBrowser, path: string, body: unknown, key = uniqueKey('replay')) => {
  const first = await post(browser, path, body, key);
  expect(first.status, `${path}: ${first.text}`).toBeLessThan(500);
  expect(replayed(first), path).toBeNull();
  const again = await post(browser, path, body, key);
  expect(again.status, `${path}: ${again.text}`).toBe(first.status);
  expect(replayed(again), path).toBe('true');
  expect(again.headers.get('cache-control'), path).toBe('no-store');
  expect(again.headers.get('location'), path).toBe(first.headers.get('location'));
  return { first, again, key };
};

describe('every member POST of the route table', () => {
  it('is either replayed or exempt for a reason given here, and the exemptions are member POSTs', () => {
    expect(MEMBER_POSTS.length).toBeGreaterThan(30);
    for (const name of Object.keys(EXEMPT)) expect(MEMBER_POSTS.map((route) => route.name), name).toContain(name);
  });

  for (const route of REPLAYING) {
    it(`${route.name} (${route.path}): the same key and body replays the first answer, no body as {}; another body 422; a key over 200 characters 422`, async () => {
      const path = pathOf(route);
      const { first, again, key } = await expectReplays(owner, path, {});
      expect(again.text).toBe(first.text);
      const withoutBody = await post(owner, path, undefined, key);
      expect(replayed(withoutBody)).toBe('true');
      expect(withoutBody.text).toBe(first.text);
      expectError(await post(owner, path, { another: 'body' }, key), 422, 'idempotency_key_reused');
      // The first answer stands after the refused reuse.
      expect((await post(owner, path, {}, key)).text).toBe(first.text);
      expectError(await post(owner, path, {}, 'k'.repeat(201)), 422, 'validation_failed', ['Idempotency-Key']);
    });
  }
});

describe('the exempt member POSTs', () => {
  it(`POST /app/api/sign-in: ${EXEMPT.appSignIn}`, async () => {
    const email = await newMember('Sid Signin');
    const key = uniqueKey('sign-in');
    for (let attempt = 0; attempt < 2; attempt++) {
      const asked = await requestSignIn(service, email, { 'Idempotency-Key': key });
      expect(asked.status, asked.text).toBe(202);
      expect(replayed(asked)).toBeNull();
    }
    // The header is ignored, whatever its length.
    expect((await requestSignIn(service, email, { 'Idempotency-Key': 'k'.repeat(300) })).status).toBe(202);
    expect(signInEmailsTo(service, email)).toHaveLength(3);
  });

  it(`POST /app/api/session: ${EXEMPT.appSession}`, async () => {
    const email = await newMember('Sam Session');
    expect((await requestSignIn(service, email)).status).toBe(202);
    const token = latestSignInToken(service, email);
    const key = uniqueKey('session');
    const first = await startSession(service, token, { 'Idempotency-Key': key });
    expect(first.status, first.text).toBe(200);
    expect(sessionCookieOf(first)).not.toBeNull();
    const again = await startSession(service, token, { 'Idempotency-Key': key });
    expectError(again, 401, 'unauthenticated');
    expect(replayed(again)).toBeNull();
    expect(sessionCookieOf(again)).toBeNull();
  });

  it(`POST /app/api/sign-out: ${EXEMPT.appSignOut}`, async () => {
    const leaving = await MemberBrowser.signIn(service, await newMember('Lee Leaving'));
    const key = uniqueKey('sign-out');
    const first = await post(leaving, '/app/api/sign-out', undefined, key);
    expect(first.status, first.text).toBe(204);
    const again = await post(leaving, '/app/api/sign-out', undefined, key);
    expectError(again, 401, 'unauthenticated');
    expect(replayed(again)).toBeNull();
    expect(sessionCookieOf(again)?.header).toContain('Max-Age=0');
  });
});

describe('answers with secrets', () => {
  it('a webhook secret rotation replays its answer with the secret null; the first answer\'s secret is the one deliveries are signed with', async () => {
    const created = await post(owner, '/app/api/webhooks', { url: `${receiver.url}/hook`, events: ['request.created'] }, uniqueKey('webhook'));
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const path = `/app/api/webhooks/${id}/rotate-secret`;
    const { first, again } = await expectReplays(owner, path, { overlap_hours: 0 });
    expect(first.status, first.text).toBe(200);
    expect(first.body.secret).toMatch(/^whsec_/);
    expect(again.body).toEqual({ ...first.body, secret: null });
    // Rotated once: a replay rotates nothing again.
    const rotations = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.secret_rotated' && e.data.details.webhook_id === id);
    expect(rotations).toHaveLength(1);

    // With no overlap, only the first answer's secret signs: the receiver verifies a ping with it.
    secret = first.body.secret;
    const ping = await post(owner, `/app/api/webhooks/${id}/ping`, undefined);
    expect(ping.status, ping.text).toBe(202);
    await vi.waitFor(
      async () => {
        const deliveries = (await owner.call('GET', `/app/api/webhooks/${id}/deliveries`)).body.data as Array<{ id: string; status: string }>;
        expect(deliveries.find((d) => d.id === ping.body.delivery_id)?.status).toBe('delivered');
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(JSON.stringify(await scanTable(service))).not.toContain(first.body.secret);
  });

  it('an integration rotation replays its answer with both URLs null; the URLs of the first answer work, the old ones do not', async () => {
    const connected = await post(owner, '/app/api/integrations', { name: 'Replay desk' }, uniqueKey('connect'));
    expect(connected.status, connected.text).toBe(201);
    const id = connected.body.integration.id as string;
    const { first, again } = await expectReplays(owner, `/app/api/integrations/${id}/rotate`, undefined);
    expect(first.status, first.text).toBe(200);
    expect(first.body.webhook_url).toMatch(/\/inbound\/ticket-status\/[A-Za-z0-9_-]{43}$/);
    expect(again.body).toEqual({ ...first.body, webhook_url: null, trigger_url: null });
    const rotations = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'integration.secret_rotated' && e.data.details.integration_id === id);
    expect(rotations).toHaveLength(1);

    const postTo = (url: string) => service.call('POST', new URL(url).pathname, { body: { ticket_id: 'INC-1', status: 'open' } });
    expect((await postTo(first.body.webhook_url)).status).toBe(202);
    expect((await postTo(connected.body.webhook_url)).status).toBe(404);
    const scanned = JSON.stringify(await scanTable(service));
    for (const url of [first.body.webhook_url, first.body.trigger_url]) expect(scanned).not.toContain(new URL(url).pathname.split('/').pop());
  });

  it('a reveal replays with the envelope and attachments null: no copy of the ciphertext outlives the purge', async () => {
    const marker = `sealed-${newId()}`;
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Ida Empotent', justification: 'Needs the router admin password', recipients: [org.owner.email] },
    });
    expect(created.status, created.text).toBe(201);
    const requestId = created.body.request.id as string;
    const clock = { now: () => new Date() };
    await submitAsSubject(service, requestId, clock, { envelope: { ciphertext: marker }, attachments: [{ ciphertext: `${marker}-file` }] });

    const { first, again } = await expectReplays(owner, `/app/api/requests/${requestId}/reveal`, undefined);
    expect(first.status, first.text).toBe(200);
    expect(first.body.envelope).toEqual({ ciphertext: marker });
    expect(again.body).toEqual({ envelope: null, attachments: null });
    const reveals = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'request.revealed' && e.requestId === requestId);
    expect(reveals).toHaveLength(1);

    expect((await post(owner, `/app/api/requests/${requestId}/complete`, undefined)).status).toBe(200);
    expect(JSON.stringify(await scanTable(service))).not.toContain(marker);
  });
});

describe('bodies that hold a secret', () => {
  it("an integration's signing secret and a helpdesk's credentials replay, and the table holds no plain hash of the body that carried them", async () => {
    const connected = await post(owner, '/app/api/integrations', { name: 'Secret body desk' }, uniqueKey('connect'));
    expect(connected.status, connected.text).toBe(201);
    const id = connected.body.integration.id as string;
    const calls = [
      { path: `/app/api/integrations/${id}`, body: { auth: { mode: 'hmac', secret: `summer-password-${newId()}` } } },
      { path: `/app/api/integrations/${id}/helpdesk`, body: { adapter: 'zendesk', helpdesk_url: 'https://acme.zendesk.com', client_id: 'handoff', client_secret: `winter-password-${newId()}` } },
    ];
    for (const { path, body } of calls) {
      const { first, key } = await expectReplays(owner, path, body);
      expect(first.status, first.text).toBe(200);
      const another = await post(owner, path, { ...body, ...('auth' in body ? { auth: { ...body.auth, secret: 'autumn-password-0123456789' } } : { client_secret: 'autumn-password-0123456789' }) }, key);
      expectError(another, 422, 'idempotency_key_reused');
      // What anyone reading the table could try a dictionary of passwords against: a SHA-256 of the body.
      const plainFingerprint = sha256Hex(`POST ${path}\n${canonicalize(body)}`);
      const fingerprints = (await scanTable(service)).filter((item) => item.kind === 'idempotency').map((item) => item.fingerprint);
      expect(fingerprints.length).toBeGreaterThan(0);
      expect(fingerprints).not.toContain(plainFingerprint);
    }
  });
});

describe('whose key it is', () => {
  it("one member's key never replays another member's answer, nor another organisation's", async () => {
    const colleague = await MemberBrowser.signIn(service, await newMember('Cora Colleague', 'admin'));
    const elsewhere = await service.createOrganisation({ name: 'Elsewhere Org' });
    const stranger = await MemberBrowser.signIn(service, elsewhere.owner.email);

    const key = uniqueKey('shared');
    const body = { name: 'Acme Ltd' };
    const answers = [];
    for (const browser of [owner, colleague, stranger]) {
      const created = await post(browser, '/app/api/clients', body, key);
      expect(created.status, created.text).toBe(201);
      expect(replayed(created)).toBeNull();
      answers.push(created.body.id as string);
    }
    expect(new Set(answers).size).toBe(3);
    // Each member's own retry is theirs to replay.
    const mine = await post(colleague, '/app/api/clients', body, key);
    expect(replayed(mine)).toBe('true');
    expect(mine.body.id).toBe(answers[1]);
  });
});
