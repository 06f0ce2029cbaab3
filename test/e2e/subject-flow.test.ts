import { GetCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../web/crypto/envelope.ts';
import { commitmentOf, exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { expectError } from '../support/shapes.ts';
import { MAX_EMAIL_CODES } from '../../lambdas/core/subject-flow.ts';
import { EMAIL_CODES_USED_UP } from '../../lambdas/core/use-cases/subject/email-code.ts';
import { EMAILED_CODE_EXPIRED } from '../../lambdas/core/use-cases/subject/verify.ts';
import { subjectBrowser } from '../support/subject-browser.ts';
import { emailedCodeSince, expireEmailedCode, outboxNow } from '../support/emailed-code.ts';

/** The subject's endpoints, driven as the link page's script drives them, with real browser crypto. */
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
  subjectCall = subjectBrowser(service);
});
afterAll(() => service?.stop());

// One browser: it keeps the subject pass a passed code issued, as the page does.
let subjectCall: ReturnType<typeof subjectBrowser<TestService>>;

const createRequest = async (extra: Record<string, unknown> = {}) => {
  const created = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email, org.member.email], ...extra },
  });
  expect(created.status).toBe(201);
  const link = new URL(created.body.link);
  return { ...created.body, token: link.pathname.split('/').pop()!, fragment: link.hash.slice(1) };
};

const requestItem = async (id: string) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `REQ#${id}`, sk: 'REQ' } }))).Item!;

const auditTypes = async (id: string) =>
  ((await service.deps.db.send(
    new QueryCommand({
      TableName: service.deps.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :trail)',
      ExpressionAttributeValues: { ':pk': `REQ#${id}`, ':trail': 'TRAIL#' },
    }),
  )).Items ?? []).map((item) => item.type);

describe('the subject flow', () => {
  it('describes, opens once, verifies, and takes a sealed credential', async () => {
    const created = await createRequest();
    const described = await subjectCall(created.token, 'GET', '/subject/request');
    expect(described.status).toBe(200);
    expect(described.body.status).toBe('pending');
    expect(described.body.requester.name).toBe('Olivia Owner');
    expect(described.body.verification).toEqual({ passed: false, challenge_passed: false, email_passed: false, attempts_left: 5 });
    // The page recomputes the commitment from the served keys: it matches the link's fragment.
    const recipients = described.body.recipients.map((r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key }));
    expect(await commitmentOf(recipients)).toBe(created.fragment);
    expect(described.text).not.toContain(created.challenge_code);
    // Describing changes nothing.
    expect((await requestItem(created.request.id)).status).toBe('pending');

    const opened = await subjectCall(created.token, 'POST', '/subject/open');
    expect(opened.status).toBe(200);
    expect(opened.body.status).toBe('opened');
    const again = await subjectCall(created.token, 'POST', '/subject/open');
    expect(again.body.status).toBe('opened');
    expect((await auditTypes(created.request.id)).filter((t) => t === 'request.opened')).toHaveLength(1);

    const early = await subjectCall(created.token, 'POST', '/subject/submit', { envelope: {}, attachments: [] });
    expect(early.status).toBe(422);

    const wrongCode = created.challenge_code === '000000' ? '111111' : '000000';
    const wrong = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: wrongCode });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.challenge_code[0]).toMatch(/4 attempts left/);
    expect(wrong.body.verification.attempts_left).toBe(4);
    const right = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
    expect(right.status).toBe(200);
    expect(right.body.verification.passed).toBe(true);

    // Seal to the served keys (the test has no private keys: opening is the member app's part).
    const sealTo = await Promise.all(
      described.body.recipients.map(async (r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
    );
    const { envelope } = await seal(JSON.stringify({ credential: 'Tr0ub4dor&3-plaintext' }), sealTo, created.request.id);
    const submitted = await subjectCall(created.token, 'POST', '/subject/submit', { envelope, attachments: [] });
    expect(submitted.status).toBe(200);
    expect(submitted.body.status).toBe('submitted');

    const api = await service.call('GET', `/requests/${created.request.id}`, { key: org.key });
    expect(api.body.status).toBe('submitted');
    expect(api.body.submitted_at).toBe(submitted.body.submitted_at);
    expect(Date.parse(api.body.record_expires_at) - Date.parse(api.body.submitted_at)).toBe(api.body.ttl_minutes * 60_000);

    const closed = await subjectCall(created.token, 'GET', '/subject/request');
    expect(closed.status).toBe(410);
    expect(closed.body).toMatchObject({ code: 'link_closed', reason: 'submitted' });

    const items = (await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items ?? [];
    expect(JSON.stringify(items)).not.toContain('Tr0ub4dor');
    expect(items.filter((item) => item.pk === `REQ#${created.request.id}` && item.sk === 'MATERIAL#envelope')).toHaveLength(1);
    expect(await auditTypes(created.request.id)).toEqual(
      expect.arrayContaining(['request.created', 'request.opened', 'subject.verification_failed', 'subject.verified', 'request.submitted']),
    );
  });

  it('refuses an envelope not sealed to exactly the recipients', async () => {
    const created = await createRequest({ verification_mode: 'none' });
    const stranger = await generateIdentityPair();
    const publicKey = await exportPublicKey(stranger.publicKey);
    const { envelope } = await seal('x', [{ membershipId: org.owner.id, publicKey, fingerprint: await fingerprintOf(publicKey) }], created.request.id);
    const refused = await subjectCall(created.token, 'POST', '/subject/submit', { envelope, attachments: [] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors['envelope.recipients']).toBeDefined();
    expect((await requestItem(created.request.id)).status).toBe('pending');
  });

  it('shows a swapped recipient key: the recomputed commitment no longer matches', async () => {
    const created = await createRequest({ verification_mode: 'none' });
    const attacker = await generateIdentityPair();
    const attackerKey = await exportPublicKey(attacker.publicKey);
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: { pk: `ORG#${org.orgId}`, sk: `MEMBER#${org.member.id}` },
        UpdateExpression: 'SET identityKey.publicKey = :key, identityKey.fingerprint = :fingerprint',
        ExpressionAttributeValues: { ':key': attackerKey, ':fingerprint': await fingerprintOf(attackerKey) },
      }),
    );
    const described = await subjectCall(created.token, 'GET', '/subject/request');
    const recipients = described.body.recipients.map((r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key }));
    expect(await commitmentOf(recipients)).not.toBe(created.fragment);
  });

  it('locks the link after five wrong codes and records reports', async () => {
    const created = await createRequest({ verification_mode: 'challenge' });
    const wrongCode = created.challenge_code === '000000' ? '111111' : '000000';
    for (let attempt = 1; attempt <= 5; attempt++) {
      const answer = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: wrongCode });
      expect(answer.status).toBe(422);
    }
    const locked = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
    expect(locked.status).toBe(410);
    expect(locked.body.reason).toBe('locked');
    const api = await service.call('GET', `/requests/${created.request.id}`, { key: org.key });
    expect(api.body.needs_relink).toBe(true);

    const reported = await subjectCall(created.token, 'POST', '/subject/report', { reason: 'I never asked for this' });
    expect(reported.status).toBe(202);
    expect(await auditTypes(created.request.id)).toContain('request.reported');
    expect(await auditTypes(created.request.id)).toContain('request.link_locked');
  });

  it('records at most three reports per request, however many come and however fast; every one answers 202', async () => {
    const created = await createRequest();
    const sequential = [];
    for (let i = 0; i < 2; i++) sequential.push(await subjectCall(created.token, 'POST', '/subject/report', { reason: `report ${i}` }));
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => subjectCall(created.token, 'POST', '/subject/report', { reason: `burst ${i}` })));
    for (const answer of [...sequential, ...burst]) {
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual({ reported: true });
    }
    expect((await auditTypes(created.request.id)).filter((type) => type === 'request.reported')).toHaveLength(3);
    const events = await service.call('GET', '/events?types=request.reported', { key: org.key });
    expect(events.body.data.filter((event: { data: { request: { id: string } } }) => event.data.request.id === created.request.id)).toHaveLength(3);
  });

  it('answers 404 for an unknown token and 410 for a revoked link', async () => {
    expect((await subjectCall('A'.repeat(43), 'GET', '/subject/request')).status).toBe(404);
    expect((await service.call('GET', '/subject/request')).status).toBe(404);
    const created = await createRequest();
    await service.call('POST', `/requests/${created.request.id}/revoke`, { key: org.key });
    const revoked = await subjectCall(created.token, 'POST', '/subject/open');
    expect(revoked.status).toBe(410);
    expect(revoked.body.reason).toBe('revoked');
  });

  it('emails a one-time code for email_otp and accepts it once', async () => {
    const created = await createRequest({ verification_mode: 'email_otp', subject_email: 'jane@example.com' });
    const sent = await subjectCall(created.token, 'POST', '/subject/email-code');
    expect(sent.status).toBe(202);
    const { readdirSync, readFileSync } = await import('node:fs');
    const files = readdirSync(service.outboxDir).filter((f) => f.includes('email'));
    const message = files.map((f) => JSON.parse(readFileSync(`${service.outboxDir}/${f}`, 'utf8'))).find((m) => m.purpose === 'email_code');
    expect(message.to).toBe('jane@example.com');
    const code = /(\d{6})/.exec(message.text)![1];
    expect(JSON.stringify((await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items)).not.toContain(`"${code}"`);
    const verified = await subjectCall(created.token, 'POST', '/subject/verify', { email_code: code });
    expect(verified.status).toBe(200);
    expect(verified.body.verification.email_passed).toBe(true);
  });

  it('an emailed code typed after it expired is refused without spending an attempt; a wrong one spends one', async () => {
    const created = await createRequest({ verification_mode: 'email_otp', subject_email: 'jane@example.com' });
    const before = outboxNow(service);
    expect((await subjectCall(created.token, 'POST', '/subject/email-code')).status).toBe(202);
    const code = emailedCodeSince(service, before)!;
    await expireEmailedCode(service, created.request.id);
    const itemBefore = await requestItem(created.request.id);
    const late = await subjectCall(created.token, 'POST', '/subject/verify', { email_code: code });
    // Nothing written: an answer that spends nothing records nothing either.
    expect(await requestItem(created.request.id)).toEqual(itemBefore);
    expect([late.status, late.body.code, Object.keys(late.body.errors)]).toEqual([422, 'validation_failed', ['email_code']]);
    expect(late.body.errors.email_code[0]).toBe(`${EMAILED_CODE_EXPIRED} 5 attempts left.`);
    expect(late.body.verification).toMatchObject({ passed: false, attempts_left: 5 });
    const wrong = await subjectCall(created.token, 'POST', '/subject/verify', { email_code: code === '000000' ? '111111' : '000000' });
    expect(wrong.body.verification).toMatchObject({ passed: false, attempts_left: 4 });
  });

  it('emails at most five codes for a link, then answers 429 with no Retry-After: waiting never helps, a new link does', async () => {
    const created = await createRequest({ verification_mode: 'email_otp', subject_email: 'jane@example.com' });
    for (let sent = 0; sent < MAX_EMAIL_CODES; sent += 1) expect((await subjectCall(created.token, 'POST', '/subject/email-code')).status).toBe(202);
    const refused = await subjectCall(created.token, 'POST', '/subject/email-code');
    expectError(refused, 429, 'rate_limited');
    expect(refused.body.message).toBe(EMAIL_CODES_USED_UP);
    expect(refused.headers.get('retry-after')).toBeNull();
  });

  it('marks the link needs_relink once every emailed code is sent and the last has expired, and a new link clears it', async () => {
    const created = await createRequest({ verification_mode: 'email_otp', subject_email: 'jane@example.com' });
    const id = created.request.id as string;
    const needsRelink = async () => (await service.call('GET', `/requests/${id}`, { key: org.key })).body.needs_relink;
    for (let sent = 0; sent < MAX_EMAIL_CODES; sent += 1) expect((await subjectCall(created.token, 'POST', '/subject/email-code')).status).toBe(202);

    // The last code can still be typed: refused, but nothing is marked.
    const whileOneIsLeft = await subjectCall(created.token, 'POST', '/subject/email-code');
    expectError(whileOneIsLeft, 429, 'rate_limited');
    expect(await needsRelink()).toBe(false);

    await expireEmailedCode(service, id);
    const usedUp = await subjectCall(created.token, 'POST', '/subject/email-code');
    expectError(usedUp, 429, 'rate_limited');
    expect(usedUp.body.message).toBe(EMAIL_CODES_USED_UP);
    expect(await needsRelink()).toBe(true);
    expect(await auditTypes(id)).toContain('request.email_codes_used_up');
    // Asked again: the same refusal, and no second entry.
    expectError(await subjectCall(created.token, 'POST', '/subject/email-code'), 429, 'rate_limited');
    expect((await auditTypes(id)).filter((type) => type === 'request.email_codes_used_up')).toHaveLength(1);

    const relinked = await service.call('POST', `/requests/${id}/relink`, { key: org.key });
    expect(relinked.status, relinked.text).toBe(200);
    expect(relinked.body.request.needs_relink).toBe(false);
    const trail = (await service.deps.db.send(new QueryCommand({ TableName: service.deps.tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :trail)', ExpressionAttributeValues: { ':pk': `REQ#${id}`, ':trail': 'TRAIL#' } }))).Items ?? [];
    expect(JSON.stringify(trail.find((item) => item.type === 'request.relinked')), 'the new link put down to the used-up codes').toContain('"cause":"email_codes_used_up"');
    const token = new URL(relinked.body.link).pathname.split('/').pop()!;
    expect((await subjectCall(token, 'POST', '/subject/email-code')).status).toBe(202);
  });

  it('keeps a link whose emailed codes are used up usable in mode either: the spoken code still passes', async () => {
    const created = await createRequest({ verification_mode: 'either', subject_email: 'jane@example.com' });
    for (let sent = 0; sent < MAX_EMAIL_CODES; sent += 1) expect((await subjectCall(created.token, 'POST', '/subject/email-code')).status).toBe(202);
    await expireEmailedCode(service, created.request.id);
    expectError(await subjectCall(created.token, 'POST', '/subject/email-code'), 429, 'rate_limited');
    expect((await service.call('GET', `/requests/${created.request.id}`, { key: org.key })).body.needs_relink).toBe(false);
    expect((await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).toBe(200);
  });

  it('does not judge a code again once it has passed in this browser: a wrong one typed after spends no attempt, locks nothing and writes nothing', async () => {
    const created = await createRequest({ verification_mode: 'challenge' });
    expect((await subjectCall(created.token, 'POST', '/subject/open')).status).toBe(200);
    const right = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
    expect(right.status).toBe(200);
    // The pass is shown once, in the answer that issued it.
    const { subject_pass: issued, ...shown } = right.body.verification;
    expect(issued).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const before = await requestItem(created.request.id);
    const wrongCode = created.challenge_code === '000000' ? '111111' : '000000';
    for (let typed = 0; typed < 6; typed += 1) {
      const again = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: wrongCode });
      expect(again.status, again.text).toBe(200);
      expect(again.body.verification).toEqual(shown);
    }
    const after = await requestItem(created.request.id);
    expect(after.verification).toEqual(before.verification);
    expect(after.needsRelink).toBe(false);
    expect((await auditTypes(created.request.id)).filter((type) => type === 'subject.verification_failed' || type === 'request.link_locked')).toEqual([]);
  });
  describe('a passed code belongs to the browser that passed it, not to the link', () => {
    const sealedFor = async (created: Awaited<ReturnType<typeof createRequest>>, holder: (token: string, method: string, path: string, body?: unknown) => Promise<any>) => {
      const described = await holder(created.token, 'GET', '/subject/request');
      const recipients = await Promise.all(
        described.body.recipients.map(async (r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
      );
      return (await seal(JSON.stringify({ credential: 'chosen-by-whoever-sends', note: '', attachments: 0 }), recipients, created.request.id)).envelope;
    };
    const materialItems = async (id: string) =>
      ((await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName }))).Items ?? []).filter((item) => item.pk === `REQ#${id}` && item.sk !== 'REQ' && !String(item.sk).startsWith('TRAIL#'));

    it('a browser holding only the link, after another passed the code, has passed nothing and cannot submit', async () => {
      const created = await createRequest({ verification_mode: 'challenge' });
      const first = subjectBrowser(service);
      const passed = await first(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
      expect(passed.status, passed.text).toBe(200);
      expect(passed.body.verification).toMatchObject({ passed: true, challenge_passed: true, attempts_left: 5 });
      // Only its hash is stored.
      const stored = await requestItem(created.request.id);
      expect(JSON.stringify(stored)).not.toContain(passed.body.verification.subject_pass);
      expect(stored.verification.passHash).toMatch(/^[0-9a-f]{64}$/);

      const other = subjectBrowser(service);
      const described = await other(created.token, 'GET', '/subject/request');
      expect(described.body.verification).toEqual({ passed: false, challenge_passed: false, email_passed: false, attempts_left: 5 });
      const envelope = await sealedFor(created, other);
      const refused = await other(created.token, 'POST', '/subject/submit', { envelope, attachments: [] });
      expectError(refused, 403, 'forbidden');
      expect(refused.body.message).toBe('Verify with the code first.');
      // A stale or made-up pass is no better than none.
      const madeUp = await service.call('POST', '/subject/submit', { headers: { 'X-Link-Token': created.token, 'X-Subject-Pass': 'A'.repeat(43) }, body: { envelope, attachments: [] } });
      expectError(madeUp, 403, 'forbidden');
      expect((await requestItem(created.request.id)).status).toBe('pending');
      expect(await materialItems(created.request.id)).toEqual([]);
      expect(await auditTypes(created.request.id)).not.toContain('request.submitted');

      // The browser that passed the code still can.
      const sent = await first(created.token, 'POST', '/subject/submit', { envelope: await sealedFor(created, first), attachments: [] });
      expect(sent.status, sent.text).toBe(200);
      expect(sent.body.status).toBe('submitted');
    });

    it('judges a code from another browser afresh: a wrong one spends an attempt, a right one issues a new pass and kills the old', async () => {
      const created = await createRequest({ verification_mode: 'challenge' });
      const first = subjectBrowser(service);
      expect((await first(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).status).toBe(200);
      const firstPass = first.passOf(created.token)!;

      const other = subjectBrowser(service);
      const wrongCode = created.challenge_code === '000000' ? '111111' : '000000';
      const wrong = await other(created.token, 'POST', '/subject/verify', { challenge_code: wrongCode });
      expect(wrong.status).toBe(422);
      expect(wrong.body.verification).toEqual({ passed: false, challenge_passed: false, email_passed: false, attempts_left: 4 });
      expect(await auditTypes(created.request.id)).toContain('subject.verification_failed');
      // The first browser keeps what it passed, with the attempt spent.
      expect((await first(created.token, 'GET', '/subject/request')).body.verification).toEqual({ passed: true, challenge_passed: true, email_passed: false, attempts_left: 4 });

      const right = await other(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code });
      expect(right.status, right.text).toBe(200);
      expect(right.body.verification).toMatchObject({ passed: true, attempts_left: 4 });
      expect(other.passOf(created.token)).not.toBe(firstPass);

      // The first browser's pass is dead: it sees nothing passed and cannot submit.
      expect((await first(created.token, 'GET', '/subject/request')).body.verification).toEqual({ passed: false, challenge_passed: false, email_passed: false, attempts_left: 4 });
      expectError(await first(created.token, 'POST', '/subject/submit', { envelope: await sealedFor(created, first), attachments: [] }), 403, 'forbidden');
      const sent = await other(created.token, 'POST', '/subject/submit', { envelope: await sealedFor(created, other), attachments: [] });
      expect(sent.status, sent.text).toBe(200);
    });

    it('in mode both, the email code passes under the pass the challenge issued; another browser starts again with a new emailed code', async () => {
      const created = await createRequest({ verification_mode: 'both', subject_email: 'jane@example.com' });
      const first = subjectBrowser(service);
      expect((await first(created.token, 'POST', '/subject/verify', { challenge_code: created.challenge_code })).body.verification).toMatchObject({ passed: false, challenge_passed: true });
      const pass = first.passOf(created.token);
      const since = outboxNow(service);
      expect((await first(created.token, 'POST', '/subject/email-code')).status).toBe(202);
      const code = await emailedCodeSince(service, since);
      const both = await first(created.token, 'POST', '/subject/verify', { email_code: code! });
      expect(both.status, both.text).toBe(200);
      expect(both.body.verification).toEqual({ passed: true, challenge_passed: true, email_passed: true, attempts_left: 5 });
      expect(first.passOf(created.token)).toBe(pass);

      // The emailed code was single-use: another browser asks for its own, and needs the challenge too.
      const other = subjectBrowser(service);
      expect((await other(created.token, 'POST', '/subject/verify', { email_code: code! })).status).toBe(422);
      const again = outboxNow(service);
      expect((await other(created.token, 'POST', '/subject/email-code')).status).toBe(202);
      const second = await other(created.token, 'POST', '/subject/verify', { email_code: (await emailedCodeSince(service, again))! });
      expect(second.body.verification).toMatchObject({ passed: false, challenge_passed: false, email_passed: true, attempts_left: 4 });
      expect((await first(created.token, 'GET', '/subject/request')).body.verification.passed).toBe(false);
    });

    it('mode none asks for no pass', async () => {
      const created = await createRequest({ verification_mode: 'none' });
      const anyone = subjectBrowser(service);
      expect((await anyone(created.token, 'GET', '/subject/request')).body.verification.passed).toBe(true);
      const sent = await anyone(created.token, 'POST', '/subject/submit', { envelope: await sealedFor(created, anyone), attachments: [] });
      expect(sent.status, sent.text).toBe(200);
    });
  });
});
