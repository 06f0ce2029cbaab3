/**
 * A new link for a request (POST /v1/requests/{id}/relink), over real HTTP: the statuses it is
 * given in and refused in, the old link and code dead at once (the old link's page says it was
 * replaced), the new ones working, the recipients and commitment resolved again, the replay
 * without secrets, and `needs_relink` from a locked link and from a recipient's new key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import { seal } from '../../web/crypto/envelope.ts';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import { relinkResult } from '../../lambdas/http/openapi/objects.ts';
import { withLaggingIndexes } from '../support/lagging-indexes.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { submitAsSubject } from '../support/submission.ts';
import { auditEntriesOfRequest, expectError, expectMatches, expectRequest, forceRequestState, requestItem } from '../support/shapes.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { subjectBrowser } from '../support/subject-browser.ts';

let service: TestService;
let org: TestOrganisation;
let writer: string;
let reader: string;
let stranger: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Relink Org' });
  writer = await service.createKey(org.orgId, { scopes: ['requests:write', 'requests:read'], name: 'Relink writer key' });
  reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Relink reader key' });
  const other = await service.createOrganisation({ name: 'Relink Stranger Org' });
  stranger = await service.createKey(other.orgId, { scopes: ['requests:write'], name: 'Stranger key' });
});
afterAll(() => service?.stop());

const tokenOf = (link: string) => new URL(link).pathname.split('/').pop()!;
// One subject browser: it keeps the subject pass a passed code issued, as the page does.
const subjectCall = subjectBrowser(() => service);

const createRequest = async (recipients = [org.owner.email]) => {
  const answer = await service.call('POST', '/requests', {
    key: writer,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients, verification_mode: 'challenge' },
  });
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.request.id as string, token: tokenOf(answer.body.link), code: answer.body.challenge_code as string, commit: answer.body.commit as string };
};
/** A request to both of `own`'s members, made with its all-scope key, in an organisation whose keys the tests before left alone. */
const createRequestIn = async (own: TestOrganisation) => {
  const answer = await service.call('POST', '/requests', {
    key: own.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [own.owner.email, own.member.email] },
  });
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.request.id as string, token: tokenOf(answer.body.link) };
};
const relink = (id: string, options: { key?: string; headers?: Record<string, string> } = {}) =>
  service.call('POST', `/requests/${id}/relink`, { key: options.key ?? writer, headers: options.headers });
const read = async (id: string) => expectRequest((await service.call('GET', `/requests/${id}`, { key: reader })).body);
const readIn = async (owner: TestOrganisation, id: string) => expectRequest((await service.call('GET', `/requests/${id}`, { key: owner.key })).body);

describe('POST /v1/requests/{id}/relink', () => {
  it('replaces a pending link: the old link and code die at once, the new ones work, audited', async () => {
    const created = await createRequest();
    const answer = await relink(created.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const result = expectMatches(relinkResult, answer.body, 'relink result');
    expect(result.request.status).toBe('pending');
    expect(result.request.needs_relink).toBe(false);
    expect(result.link).toMatch(new RegExp(`/r/[A-Za-z0-9_-]{43}#${result.commit}$`));
    expect(result.link_without_fragment).toBe(result.link!.split('#')[0]);
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(result.commitment.computed_by).toBe('server');
    const newToken = tokenOf(result.link!);
    expect(newToken).not.toBe(created.token);

    // The old link's page is told the link was replaced, not that it never existed.
    const old = await subjectCall(created.token, 'GET', '/subject/request');
    expect(old.status).toBe(410);
    expect(old.body).toMatchObject({ code: 'link_closed', reason: 'replaced' });
    expect(old.body.message).toMatch(/replaced/);
    expect((await subjectCall(created.token, 'POST', '/subject/open')).status).toBe(410);

    const described = await subjectCall(newToken, 'GET', '/subject/request');
    expect(described.status, described.text).toBe(200);
    expect(described.body.status).toBe('pending');
    // The old code no longer verifies on the new link; the new one does.
    if (created.code !== result.challenge_code) {
      const wrong = await subjectCall(newToken, 'POST', '/subject/verify', { challenge_code: created.code });
      expect(wrong.status).toBe(422);
    }
    const right = await subjectCall(newToken, 'POST', '/subject/verify', { challenge_code: result.challenge_code });
    expect(right.status, right.text).toBe(200);
    expect(right.body.verification.challenge_passed).toBe(true);

    const item = await requestItem(service, created.id);
    expect(item!.linkTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(item)).not.toContain(newToken);
    const entries = await auditEntriesOfRequest(service, org.orgId, created.id);
    const relinked = entries.find((entry) => entry.type === 'request.relinked');
    expect(relinked?.actor).toMatchObject({ type: 'api', label: 'Relink writer key' });
    expect(relinked?.data?.details).toEqual({ cause: 'replaced', previous_status: 'pending', excluded_recipients: [] });
    expect(JSON.stringify(entries)).not.toContain(newToken);
    expect(JSON.stringify(entries)).not.toContain(result.challenge_code!);
  });

  it('replays the first answer without the link and code for the same Idempotency-Key', async () => {
    const created = await createRequest();
    const headers = { 'Idempotency-Key': `relink-${created.id}` };
    const first = await relink(created.id, { headers });
    expect(first.status).toBe(200);
    const again = await relink(created.id, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toMatchObject({ link: null, link_without_fragment: null, challenge_code: null, commit: first.body.commit });
    // The first link still works: the replay made no new one.
    expect((await subjectCall(tokenOf(first.body.link), 'GET', '/subject/request')).status).toBe(200);
  });

  it('gives a locked link a new one: needs_relink true while locked, false after, attempts back to five', async () => {
    const created = await createRequest();
    const wrongCode = created.code === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt++) await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: wrongCode });
    expect((await read(created.id)).needs_relink).toBe(true);
    const answer = await relink(created.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.request.needs_relink).toBe(false);
    expect((await read(created.id)).needs_relink).toBe(false);
    const described = await subjectCall(tokenOf(answer.body.link), 'GET', '/subject/request');
    expect(described.body.verification.attempts_left).toBe(5);
    const entries = await auditEntriesOfRequest(service, org.orgId, created.id);
    expect(entries.find((entry) => entry.type === 'request.relinked')?.data?.details?.cause).toBe('locked');
  });

  it('brings a revoked request and one expired before submission back to pending', async () => {
    for (const [status, extra] of [
      ['revoked', { revokedAt: new Date().toISOString(), revokedReason: 'revoked_via_api' }],
      ['expired', { linkExpiresAt: new Date(Date.now() - 1000).toISOString(), purgeReason: 'expired' }],
    ] as const) {
      const created = await createRequest();
      await forceRequestState(service, org.orgId, created.id, status, extra);
      const answer = await relink(created.id);
      expect(answer.status, `${status}: ${answer.text}`).toBe(200);
      expect(answer.body.request).toMatchObject({ status: 'pending', revoked_at: null, revoked_reason: null, purge_reason: null, opened_at: null });
      expect(Date.parse(answer.body.request.link_expires_at)).toBeGreaterThan(Date.now());
      expect((await subjectCall(tokenOf(answer.body.link), 'GET', '/subject/request')).status).toBe(200);
      const item = await requestItem(service, created.id);
      expect(item!.gsi2pk).toBe(`ORG#${org.orgId}#REQS#pending`);
    }
  });

  it('refuses a submitted, completed or expired-after-submission request with 409 illegal_transition', async () => {
    const at = new Date().toISOString();
    for (const [status, extra] of [
      ['submitted', { submittedAt: at, recordExpiresAt: new Date(Date.now() + 86_400_000).toISOString() }],
      ['completed', { submittedAt: at, completedAt: at, purgeReason: 'completed_via_api' }],
      ['expired', { submittedAt: at, purgeReason: 'expired' }],
    ] as const) {
      const created = await createRequest();
      await forceRequestState(service, org.orgId, created.id, status, extra);
      expectError(await relink(created.id), 409, 'illegal_transition');
      expect((await subjectCall(created.token, 'GET', '/subject/request')).body.reason).not.toBe('replaced');
    }
  });

  it('gives the new link at least the organisation\u2019s minimum verification raised since the request was made', async () => {
    const own = await service.createOrganisation({ name: 'Relink Minimum Org' });
    const created = await service.call('POST', '/requests', {
      key: own.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [own.owner.email], verification_mode: 'none' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.challenge_code).toBeNull();
    const owner = await MemberBrowser.signIn(service, own.owner.email);
    const raised = await owner.call('POST', '/app/api/organisation/policy', { body: { minimum_verification: 'challenge' } });
    expect(raised.status, raised.text).toBe(200);

    const answer = await service.call('POST', `/requests/${created.body.request.id}/relink`, { key: own.key });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.request.verification_mode).toBe('challenge');
    expect(answer.body.challenge_code).toMatch(/^[0-9]{6}$/);
    const entries = await auditEntriesOfRequest(service, own.orgId, created.body.request.id);
    expect(entries.find((entry) => entry.type === 'request.relinked')?.data?.details).toMatchObject({ verification_mode_raised_from: 'none' });

    // A minimum that emails the subject a code cannot apply to a request without the subject's email.
    expect((await owner.call('POST', '/app/api/organisation/policy', { body: { minimum_verification: 'email_otp', default_verification: 'email_otp' } })).status).toBe(200);
    expectError(await service.call('POST', `/requests/${created.body.request.id}/relink`, { key: own.key }), 422, 'validation_failed', ['verification_mode']);
  });

  it('takes no body: a revoke, a new link or a completion with any member answers 422 Unknown field, and changes nothing', async () => {
    const created = await createRequest();
    for (const [action, body] of [
      ['revoke', { reason: 'customer asked', notify: true }],
      ['relink', { delivery: { method: 'email' } }],
      ['complete', { reason: 'done' }],
    ] as const) {
      const answer = await service.call('POST', `/requests/${created.id}/${action}`, { key: writer, body });
      expect(answer.status, `${action}: ${answer.text}`).toBe(422);
      expect(answer.body).toMatchObject({ code: 'validation_failed', errors: Object.fromEntries(Object.keys(body).map((field) => [field, ['Unknown field.']])) });
    }
    expect((await read(created.id)).status).toBe('pending');
    expect((await subjectCall(created.token, 'GET', '/subject/request')).status).toBe(200);
    // An empty object is no body.
    expect((await service.call('POST', `/requests/${created.id}/revoke`, { key: writer, body: {} })).status).toBe(200);
  });

  it('answers a burst of concurrent new links for one request 200 or 503 with Retry-After, never 500, one entry per link given', async () => {
    const created = await createRequest();
    const answers = await Promise.all(Array.from({ length: 10 }, () => relink(created.id)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503), answers.map((answer) => answer.text).join('\n')).toEqual([]);
    for (const answer of answers.filter((one) => one.status === 503)) {
      expect(answer.body.code).toBe('service_unavailable');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    const entries = await auditEntriesOfRequest(service, org.orgId, created.id);
    expect(entries.filter((entry) => entry.type === 'request.relinked')).toHaveLength(statuses.filter((status) => status === 200).length);
  });

  it('answers 403 without requests:write and 404 for another organisation\u2019s request or an unknown id', async () => {
    const created = await createRequest();
    expectError(await relink(created.id, { key: reader }), 403, 'forbidden');
    expectError(await relink(created.id, { key: stranger }), 404, 'not_found');
    expectError(await relink('0'.repeat(26)), 404, 'not_found');
    // Nothing changed: the first link still works.
    expect((await subjectCall(created.token, 'GET', '/subject/request')).status).toBe(200);
  });
});

describe('needs_relink and the recipients checked again after a recipient\u2019s key changes', () => {
  it('marks the link unusable, and a relink leaves out the member whose new key awaits approval', async () => {
    const created = await createRequest([org.owner.email, org.member.email]);
    expect((await read(created.id)).needs_relink).toBe(false);

    const member = await MemberBrowser.signIn(service, org.member.email);
    const replaced = await member.call('POST', '/app/api/identity-key', { body: { public_key: identityKey().publicKey } });
    expect(replaced.status, replaced.text).toBe(200);

    const marked = await read(created.id);
    expect(marked.needs_relink).toBe(true);
    expect(marked.status).toBe('pending');
    const entries = await auditEntriesOfRequest(service, org.orgId, created.id);
    expect(entries.find((entry) => entry.type === 'request.needs_relink')?.data?.details).toEqual({ reason: 'recipient_key_changed', recipients: [org.member.name] });

    const answer = await relink(created.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.excluded_recipients).toEqual([org.member.name]);
    expect(answer.body.request.recipients.map((r: { membership_id: string }) => r.membership_id)).toEqual([org.owner.id]);
    expect(answer.body.commit).not.toBe(created.commit);
    expect(answer.body.request.needs_relink).toBe(false);
    // The new link's page now finds exactly the keys the new commitment was made from.
    const described = await subjectCall(tokenOf(answer.body.link), 'GET', '/subject/request');
    expect(described.body.recipients.map((r: { membership_id: string }) => r.membership_id)).toEqual([org.owner.id]);
  });

  it('a key change whose refresh missed the request (its index lagging, as deployed) is caught when the subject opens the link', async () => {
    // An organisation of its own: its member's key has not been replaced by the tests before.
    const fresh = await service.createOrganisation({ name: 'Relink Lagging Org' });
    const created = await createRequestIn(fresh);
    const member = await MemberBrowser.signIn(service, fresh.member.email);
    const replaced = await withLaggingIndexes(service.deps.db, [created.id], () =>
      member.call('POST', '/app/api/identity-key', { body: { public_key: identityKey().publicKey } }),
    );
    expect(replaced.status, replaced.text).toBe(200);
    expect((await readIn(fresh, created.id)).needs_relink).toBe(false);

    const opened = await subjectCall(created.token, 'POST', '/subject/open');
    expect(opened.status, opened.text).toBe(200);
    expect(await readIn(fresh, created.id)).toMatchObject({ status: 'opened', needs_relink: true });
    const flagged = (await auditEntriesOfRequest(service, fresh.orgId, created.id)).filter((entry) => entry.type === 'request.needs_relink');
    expect(flagged.map((entry) => [entry.actor, entry.data?.details])).toEqual([
      [{ type: 'system', label: 'recipient check' }, { reason: 'recipient_key_changed', recipients: [fresh.member.name] }],
    ]);
    // Opened again, the link is already flagged: nothing more is written.
    expect((await subjectCall(created.token, 'POST', '/subject/open')).status).toBe(200);
    expect((await auditEntriesOfRequest(service, fresh.orgId, created.id)).filter((entry) => entry.type === 'request.needs_relink')).toHaveLength(1);
  });

  it('a key change on a link already marked (locked, or another recipient\u2019s key) is recorded on its trail once, the flag and the cause of a new link as they were', async () => {
    const own = await service.createOrganisation({ name: 'Relink Marked Org' });
    const created = await service.call('POST', '/requests', {
      key: own.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [own.owner.email, own.member.email], verification_mode: 'challenge' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.request.id as string;
    const wrongCode = created.body.challenge_code === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt++) await subjectCall(tokenOf(created.body.link), 'POST', '/subject/verify', { challenge_code: wrongCode });
    expect((await readIn(own, id)).needs_relink).toBe(true);

    const keyChanges = async () =>
      (await auditEntriesOfRequest(service, own.orgId, id))
        .filter((entry) => entry.type === 'request.needs_relink' || entry.type === 'request.recipient_key_changed')
        .map((entry) => [entry.type, entry.data?.details]);
    const member = await MemberBrowser.signIn(service, own.member.email);
    expect((await member.call('POST', '/app/api/identity-key', { body: { public_key: identityKey().publicKey } })).status).toBe(200);
    expect(await keyChanges()).toEqual([['request.recipient_key_changed', { reason: 'recipient_key_changed', recipients: [own.member.name] }]]);
    // Another member's key: another entry; the first change is not written again.
    const owner = await MemberBrowser.signIn(service, own.owner.email);
    expect((await owner.call('POST', '/app/api/identity-key', { body: { public_key: identityKey().publicKey } })).status).toBe(200);
    expect(await keyChanges()).toEqual([
      ['request.recipient_key_changed', { reason: 'recipient_key_changed', recipients: [own.member.name] }],
      ['request.recipient_key_changed', { reason: 'recipient_key_changed', recipients: [own.owner.name] }],
    ]);

    // Approving a key awaiting approval changes no key: nothing is written.
    expect((await owner.call('POST', `/app/api/members/${own.member.id}/approve-key`)).status).toBe(200);
    expect(await keyChanges()).toHaveLength(2);

    expect(await readIn(own, id)).toMatchObject({ status: 'pending', needs_relink: true });
    const answer = await service.call('POST', `/requests/${id}/relink`, { key: own.key });
    expect(answer.status, answer.text).toBe(200);
    const relinked = (await auditEntriesOfRequest(service, own.orgId, id)).find((entry) => entry.type === 'request.relinked');
    expect(relinked?.data?.details?.cause).toBe('locked');
  });

  it('answers 422 on recipients when no recipient can receive any more', async () => {
    const lone = await service.createOrganisation({ name: 'Relink Lone Org' });
    const key = await service.createKey(lone.orgId, { scopes: ['requests:write'], name: 'Lone key' });
    const created = await service.call('POST', '/requests', {
      key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [lone.member.email] },
    });
    expect(created.status, created.text).toBe(201);
    const owner = await MemberBrowser.signIn(service, lone.owner.email);
    expect((await owner.call('POST', `/app/api/members/${lone.member.id}/disable`)).status).toBe(200);
    expectError(await service.call('POST', `/requests/${created.body.request.id}/relink`, { key }), 422, 'validation_failed', ['recipients']);
  });
});

describe('unrecoverable', () => {
  it('turns true when no recipient can open the stored credential, with an event saying why, and false again when one can', async () => {
    const own = await service.createOrganisation({ name: 'Unrecoverable Org' });
    const { id } = await createRequestIn(own);
    await submitAsSubject(service, id, systemClock, { envelope: { sealed: 'ciphertext' }, attachments: [] });
    const readOwn = async () => expectRequest((await service.call('GET', `/requests/${id}`, { key: own.key })).body);
    expect((await readOwn()).unrecoverable).toBe(false);

    const owner = await MemberBrowser.signIn(service, own.owner.email);
    expect((await owner.call('POST', `/app/api/members/${own.member.id}/disable`)).status).toBe(200);
    // The owner still holds the key it was sealed to.
    expect((await readOwn()).unrecoverable).toBe(false);

    expect((await owner.call('POST', '/app/api/identity-key', { body: { public_key: identityKey().publicKey } })).status).toBe(200);
    const lost = await readOwn();
    expect(lost.unrecoverable).toBe(true);
    expect(lost.status).toBe('submitted');

    const events = await service.call('GET', '/events?types=request.unrecoverable', { key: own.key });
    expect(events.status, events.text).toBe(200);
    const event = events.body.data.find((e: { data: { request: { id: string } } }) => e.data.request.id === id);
    expect(event?.data.details).toEqual({
      reason: 'recipients_keys_replaced_or_disabled',
      recipients: expect.arrayContaining([
        { membership_id: own.owner.id, label: own.owner.name, problem: 'key_replaced' },
        { membership_id: own.member.id, label: own.member.name, problem: 'disabled' },
      ]),
    });

    // The member is enabled again, still with the key it was sealed to: the credential can be opened again.
    expect((await owner.call('POST', `/app/api/members/${own.member.id}/enable`)).status).toBe(200);
    expect((await readOwn()).unrecoverable).toBe(false);
    const entries = await auditEntriesOfRequest(service, own.orgId, id);
    expect(entries.map((entry) => entry.type)).toEqual(expect.arrayContaining(['request.unrecoverable', 'request.recoverable']));
  });

  it('is true from the moment a credential arrives sealed only to recipients who were disabled before the subject sent it', async () => {
    const own = await service.createOrganisation({ name: 'Disabled Before Submission Org' });
    const created = await service.call('POST', '/requests', {
      key: own.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [own.member.email], verification_mode: 'none' },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.request.id;
    const owner = await MemberBrowser.signIn(service, own.owner.email);
    expect((await owner.call('POST', `/app/api/members/${own.member.id}/disable`)).status).toBe(200);
    // A disabled recipient does not stop the subject: the member may be enabled again.
    expect((await readIn(own, id)).needs_relink).toBe(false);

    const token = tokenOf(created.body.link);
    const described = await subjectCall(token, 'GET', '/subject/request');
    expect(described.status, described.text).toBe(200);
    const sealTo = await Promise.all(
      described.body.recipients.map(async (r: { membership_id: string; public_key: string }) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
    );
    const { envelope } = await seal(JSON.stringify({ credential: 'Sealed-to-a-disabled-member-1' }), sealTo, id);
    const submitted = await subjectCall(token, 'POST', '/subject/submit', { envelope, attachments: [] });
    expect(submitted.status, submitted.text).toBe(200);

    expect(await readIn(own, id)).toMatchObject({ status: 'submitted', unrecoverable: true });
    const entry = (await auditEntriesOfRequest(service, own.orgId, id)).find((e) => e.type === 'request.unrecoverable');
    expect(entry?.actor).toMatchObject({ type: 'system', label: 'recipient check at submission' });
    expect(entry?.data.details).toEqual({ reason: 'recipients_disabled', recipients: [{ membership_id: own.member.id, label: own.member.name, problem: 'disabled' }] });
  });
});
