import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../web/crypto/envelope.ts';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { expectError } from '../support/shapes.ts';
import { subjectBrowser } from '../support/subject-browser.ts';
import { emailedCodeSince, outboxNow } from '../support/emailed-code.ts';

/** Where a subject pass stops: other browsers, other requests, malformed headers, races, new links and locks. */
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
});
afterAll(() => service?.stop());

const createRequest = async (extra: Record<string, unknown> = {}) => {
  const created = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email, org.member.email], ...extra },
  });
  expect(created.status, created.text).toBe(201);
  const link = new URL(created.body.link);
  return { ...created.body, token: link.pathname.split('/').pop()!, fragment: link.hash.slice(1) };
};
type Created = Awaited<ReturnType<typeof createRequest>>;
type Browser = ReturnType<typeof subjectBrowser<TestService>>;

const requestItem = async (id: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `REQ#${id}`, sk: 'REQ' } }))).Item!;
const trail = async (id: string) =>
  (await service.deps.db.send(
    new QueryCommand({
      TableName: service.deps.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :trail)',
      ExpressionAttributeValues: { ':pk': `REQ#${id}`, ':trail': 'TRAIL#' },
    }),
  )).Items ?? [];

const envelopeFor = async (token: string, id: string) => {
  const described = await service.call('GET', '/subject/request', { headers: { 'X-Link-Token': token } });
  const recipients = await Promise.all(
    described.body.recipients.map(async (r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
  );
  return (await seal(JSON.stringify({ credential: 'x', note: '', attachments: 0 }), recipients, id)).envelope;
};
const submitWith = async (created: Created, headers: Record<string, string>) =>
  service.call('POST', '/subject/submit', {
    headers: { 'X-Link-Token': created.token, ...headers },
    body: { envelope: await envelopeFor(created.token, created.request.id), attachments: [] },
  });
const wrongOf = (code: string) => (code === '000000' ? '111111' : '000000');

/** Passes every code the mode asks for in `browser`. */
const passAll = async (created: Created, browser: Browser, mode: string) => {
  if (mode === 'challenge' || mode === 'both' || mode === 'either') {
    const r = await browser(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
    expect(r.status, r.text).toBe(200);
    if (mode === 'either') return;
  }
  if (mode === 'email_otp' || mode === 'both') {
    const since = outboxNow(service);
    expect((await browser(created.token, 'POST', '/subject/email-code')).status).toBe(202);
    const r = await browser(created.token, 'POST', '/subject/verify', { email_code: (await emailedCodeSince(service, since))! });
    expect(r.status, r.text).toBe(200);
  }
};

describe('the subject pass', () => {
  for (const mode of ['challenge', 'email_otp', 'either', 'both'] as const) {
    it(`in mode ${mode}, only the current pass submits: none, a malformed one, a stale one or another request's is refused`, async () => {
      const created = await createRequest({ verification_mode: mode, subject_email: 'jane@example.com' });
      const other = await createRequest({ verification_mode: mode, subject_email: 'jane@example.com' });
      const first = subjectBrowser(service);
      await passAll(created, first, mode);
      const stale = first.passOf(created.token)!;
      expect(stale).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Another request passed in another browser: its pass is no pass here.
      const elsewhere = subjectBrowser(service);
      await passAll(other, elsewhere, mode);
      const foreign = elsewhere.passOf(other.token)!;

      for (const headers of [
        {} as Record<string, string>,
        { 'X-Subject-Pass': '' },
        { 'X-Subject-Pass': `${stale}=` },
        { 'X-Subject-Pass': stale.slice(0, 42) },
        { 'X-Subject-Pass': `${stale},${stale}` },
        { 'X-Subject-Pass': foreign },
      ] as Record<string, string>[]) {
        const refused = await submitWith(created, headers);
        expectError(refused, 403, 'forbidden');
      }
      // A second browser passes again: the first one's pass is stale from then on.
      const second = subjectBrowser(service);
      await passAll(created, second, mode);
      expectError(await submitWith(created, { 'X-Subject-Pass': stale }), 403, 'forbidden');
      expect((await requestItem(created.request.id)).status).not.toBe('submitted');
      const sent = await submitWith(created, { 'X-Subject-Pass': second.passOf(created.token)! });
      expect(sent.status, sent.text).toBe(200);
    });
  }

  it('in mode both, the two codes passed in two browsers let neither submit', async () => {
    const created = await createRequest({ verification_mode: 'both', subject_email: 'jane@example.com' });
    const a = subjectBrowser(service);
    const b = subjectBrowser(service);
    expect((await a(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).toBe(200);
    const since = outboxNow(service);
    expect((await b(created.token, 'POST', '/subject/email-code')).status).toBe(202);
    const emailed = await b(created.token, 'POST', '/subject/verify', { email_code: (await emailedCodeSince(service, since))! });
    expect(emailed.status, emailed.text).toBe(200);
    expect(emailed.body.verification).toMatchObject({ passed: false, challenge_passed: false, email_passed: true });
    expectError(await submitWith(created, { 'X-Subject-Pass': a.passOf(created.token)! }), 403, 'forbidden');
    expectError(await submitWith(created, { 'X-Subject-Pass': b.passOf(created.token)! }), 403, 'forbidden');
  });

  it('two browsers passing the code at once: exactly one pass submits', async () => {
    const created = await createRequest({ verification_mode: 'challenge' });
    const browsers = [subjectBrowser(service), subjectBrowser(service), subjectBrowser(service)];
    const answers = await Promise.all(browsers.map((b) => b(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const passes = browsers.map((b) => b.passOf(created.token)!);
    expect(new Set(passes).size).toBe(3);
    const envelope = await envelopeFor(created.token, created.request.id);
    const outcomes = [];
    for (const pass of passes) {
      outcomes.push((await service.call('POST', '/subject/submit', { headers: { 'X-Link-Token': created.token, 'X-Subject-Pass': pass }, body: { envelope, attachments: [] } })).status);
    }
    expect(outcomes.filter((s) => s === 200)).toHaveLength(1);
  });

  it('a verify racing a submit: a submit under a pass replaced meanwhile stores nothing', async () => {
    for (let round = 0; round < 4; round++) {
      const created = await createRequest({ verification_mode: 'challenge' });
      const a = subjectBrowser(service);
      const b = subjectBrowser(service);
      expect((await a(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).toBe(200);
      const envelope = await envelopeFor(created.token, created.request.id);
      const [submitted, verified] = await Promise.all([
        service.call('POST', '/subject/submit', { headers: { 'X-Link-Token': created.token, 'X-Subject-Pass': a.passOf(created.token)! }, body: { envelope, attachments: [] } }),
        b(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code }),
      ]);
      const item = await requestItem(created.request.id);
      if (submitted.status === 200) {
        // The submit came first: the verify then met a submitted request.
        expect(item.status).toBe('submitted');
        expect(verified.status).not.toBe(200);
      } else {
        expectError(submitted, 403, 'forbidden');
        expect(item.status).not.toBe('submitted');
        expect(verified.status).toBe(200);
      }
    }
  });

  it('a new link forgets the pass and what it passed', async () => {
    const created = await createRequest({ verification_mode: 'challenge' });
    const a = subjectBrowser(service);
    expect((await a(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).toBe(200);
    const pass = a.passOf(created.token)!;
    const relinked = await service.call('POST', `/requests/${created.request.id}/relink`, { key: org.key });
    expect(relinked.status, relinked.text).toBe(200);
    const item = await requestItem(created.request.id);
    expect(item.verification ?? null).toBeNull();
    const token = new URL(relinked.body.link).pathname.split('/').pop()!;
    const fresh = { ...created, token, challenge_code: relinked.body.challenge_code };
    const seen = await service.call('GET', '/subject/request', { headers: { 'X-Link-Token': token, 'X-Subject-Pass': pass } });
    expect(seen.body.verification).toEqual({ passed: false, challenge_passed: false, email_passed: false, attempts_left: 5 });
    expectError(await submitWith(fresh, { 'X-Subject-Pass': pass }), 403, 'forbidden');
    // The old link is closed whatever pass it carries.
    const old = await service.call('POST', '/subject/submit', { headers: { 'X-Link-Token': created.token, 'X-Subject-Pass': pass }, body: { envelope: {}, attachments: [] } });
    expect(old.status).toBe(410);
  });

  it('a locked link refuses the pass holder too; wrong codes from the link alone lock it', async () => {
    const created = await createRequest({ verification_mode: 'challenge' });
    const a = subjectBrowser(service);
    expect((await a(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).toBe(200);
    const envelope = await envelopeFor(created.token, created.request.id);
    const linkOnly = subjectBrowser(service);
    for (let i = 0; i < 5; i++) expect((await linkOnly(created.token, 'POST', '/subject/verify', { challenge_code: wrongOf(created.challenge_code) })).status).toBe(422);
    expect((await requestItem(created.request.id)).needsRelink).toBe(true);
    const refused = await service.call('POST', '/subject/submit', { headers: { 'X-Link-Token': created.token, 'X-Subject-Pass': a.passOf(created.token)! }, body: { envelope, attachments: [] } });
    expect(refused.status).not.toBe(200);
    // Locked: even the right code passes nothing more.
    expect((await linkOnly(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).not.toBe(200);
  });

  it('the pass and its hash are in no audit entry, and a 422 that issued a pass shows it once', async () => {
    const created = await createRequest({ verification_mode: 'both', subject_email: 'jane@example.com' });
    const a = subjectBrowser(service);
    const half = await a(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code, email_code: '123456' });
    expect(half.status).toBe(422);
    const pass = half.body.verification.subject_pass as string;
    expect(pass).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hash = (await requestItem(created.request.id)).verification.passHash as string;
    const again = await a(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
    expect(again.status).toBe(200);
    expect(again.body.verification.subject_pass).toBeUndefined();
    const text = JSON.stringify(await trail(created.request.id));
    expect(text).not.toContain(pass);
    expect(text).not.toContain(hash);
    const events = await service.call('GET', `/requests/${created.request.id}`, { key: org.key });
    expect(events.text).not.toContain(hash);
  });
});
