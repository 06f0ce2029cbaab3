/**
 * A new link kills the old one for calls already in flight. A call of the old link is let in by
 * its token (the request read then still had it), and the new link is issued before the call's
 * change is decided: the change must be refused as `replaced`, not applied to the relinked
 * request. Otherwise a submission through the old link lands after the relink (the new link's
 * subject is then told it was already sent), and the old link's codes spend the new link's attempts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { subjectBrowser } from '../support/subject-browser.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Relink In Flight Org' });
});
afterAll(() => service?.stop());

const tokenOf = (link: string) => new URL(link).pathname.split('/').pop()!;
// One subject browser: it keeps the subject pass a passed code issued, as the page does.
const subjectCall = subjectBrowser(() => service);

const createRequest = async (verification_mode: string) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], verification_mode },
  });
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.request.id as string, token: tokenOf(answer.body.link), code: answer.body.challenge_code as string | null };
};

/** The next time the link `token` is looked up, the request is relinked just after: as a relink landing while that call is in flight. */
const relinkWhileInFlight = (id: string, token: string) => {
  const requests = service.deps.requests;
  const lookUp = requests.findByLinkTokenHash.bind(requests);
  let relinked: Promise<{ status: number; body: any }> | null = null;
  requests.findByLinkTokenHash = async (hash: string) => {
    const found = await lookUp(hash);
    if (hash === sha256Hex(token) && !relinked) {
      requests.findByLinkTokenHash = lookUp;
      relinked = service.call('POST', `/requests/${id}/relink`, { key: org.key });
      expect((await relinked).status).toBe(200);
    }
    return found;
  };
  return () => relinked!;
};

/** An envelope in the form the service takes, sealed (in form) to the request's recipients: only the link decides. */
const envelopeFor = async (id: string) => {
  const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');
  const { recipients } = await stored(id);
  const fingerprintOf = async (memberId: string) => (await service.admin.directory.getMember(org.orgId, memberId))!.identityKey!.fingerprint;
  return {
    version: 1,
    alg: 'ECDH-ES+HKDF-SHA256+A256GCM',
    ephemeral_public_key: b64(65),
    iv: b64(12),
    ciphertext: b64(48),
    recipients: await Promise.all(
      recipients.map(async (r: { membership_id: string }) => ({ membership_id: r.membership_id, fingerprint: await fingerprintOf(r.membership_id), iv: b64(12), wrapped_key: b64(48) })),
    ),
  };
};

const stored = async (id: string) => (await service.call('GET', `/requests/${id}`, { key: org.key })).body;

describe('a call of the old link in flight when a new link is issued', () => {
  it('a submission is refused as replaced, and the new link still takes the credential', async () => {
    const created = await createRequest('none');
    expect((await subjectCall(created.token, 'POST', '/subject/open')).status).toBe(200);
    const relinked = relinkWhileInFlight(created.id, created.token);
    const late = await subjectCall(created.token, 'POST', '/subject/submit', { envelope: await envelopeFor(created.id) });
    expect(late.status, late.text).toBe(410);
    expect(late.body).toMatchObject({ code: 'link_closed', reason: 'replaced' });
    expect((await stored(created.id)).status).toBe('pending');
    const newToken = tokenOf((await relinked()).body.link);
    expect((await subjectCall(newToken, 'GET', '/subject/request')).status).toBe(200);
  });

  it("the old link's code spends none of the new link's attempts", async () => {
    const created = await createRequest('challenge');
    const relinked = relinkWhileInFlight(created.id, created.token);
    const late = await subjectCall(created.token, 'POST', '/subject/verify', { challenge_code: created.code });
    expect(late.status, late.text).toBe(410);
    expect(late.body).toMatchObject({ code: 'link_closed', reason: 'replaced' });
    const answer = (await relinked()).body;
    const described = await subjectCall(tokenOf(answer.link), 'GET', '/subject/request');
    expect(described.body.verification.attempts_left).toBe(5);
    const right = await subjectCall(tokenOf(answer.link), 'POST', '/subject/verify', { challenge_code: answer.challenge_code });
    expect(right.status, right.text).toBe(200);
  });
});
