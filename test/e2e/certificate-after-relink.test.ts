/**
 * A request's custody certificate once the request has been given a new link (POST
 * /v1/requests/{id}/relink), over real HTTP: what ended before the new link (a revoke) no longer
 * ends the request, the keys and commitment stated are the new link's, and only what follows the
 * new link ends it again. Each certificate verifies; one that names a destruction a new link
 * followed does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { signerOf } from '../../lambdas/certificate-signing.ts';
import { submitAsSubject } from '../support/submission.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Relinked Custody Org' });
});
afterAll(() => service?.stop());

const jwks = async () => (await service.call('GET', '/.well-known/jwks.json')).body as Jwks;

/** The request's certificate, checked to verify as served. */
const certificateOf = async (id: string) => {
  const answer = await service.call('GET', `/requests/${id}/certificate`, { key: org.key });
  expect(answer.status, answer.text).toBe(200);
  const certificate = answer.body as SignedCertificate & { subject_kind: 'request' };
  const outcome = await verifyCertificate(certificate, await jwks());
  expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
  return certificate;
};

const fingerprints = (certificate: SignedCertificate & { subject_kind: 'request' }) =>
  Object.fromEntries(certificate.request.recipients.map((recipient) => [recipient.membership_id, recipient.fingerprint]));

describe('the certificate of a request given a new link', () => {
  it('states the new link\u2019s keys and commitment, and no destruction until the request ends again', async () => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email, org.member.email] },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.request.id;
    expect((await service.call('POST', `/requests/${id}/revoke`, { key: org.key })).status).toBe(200);

    const revoked = await certificateOf(id);
    expect(revoked.final).toBe(true);
    expect(revoked.destruction).toMatchObject({ destroyed: true, reason: 'revoked_via_api', ciphertext_stored: false });
    const before = fingerprints(revoked);

    // The member's key is replaced (and approved) before the new link: the link seals to the new key.
    const replacement = identityKey();
    await service.admin.setIdentityKey(org.orgId, org.member.id, replacement);
    await service.admin.decideIdentityKey(org.orgId, org.member.id, 'approve');
    const relinked = await service.call('POST', `/requests/${id}/relink`, { key: org.key });
    expect(relinked.status, relinked.text).toBe(200);

    const live = await certificateOf(id);
    expect(live.final).toBe(false);
    expect(live.destruction).toMatchObject({ destroyed: false, at: null, reason: null, seq: null, ciphertext_stored: false });
    expect(live.request.status).toBe('pending');
    expect(fingerprints(live)).toEqual({ [org.owner.id]: before[org.owner.id], [org.member.id]: replacement.fingerprint });
    expect(replacement.fingerprint).not.toBe(before[org.member.id]);
    expect(live.request.commitment).toEqual({ value: relinked.body.commit, computed_by: 'server' });
    expect(relinked.body.commit).not.toBe(created.body.commit);
    expect(live.timeline.find((fact) => fact.type === 'request.relinked')?.event).toBe('new link issued');

    await submitAsSubject(service, id, systemClock, { envelope: { sealed: 'ciphertext' }, attachments: [] });
    const submitted = await certificateOf(id);
    expect(submitted.final).toBe(false);
    expect(submitted.destruction).toMatchObject({ destroyed: false, ciphertext_stored: true });

    expect((await service.call('POST', `/requests/${id}/complete`, { key: org.key })).status).toBe(200);
    const completed = await certificateOf(id);
    const completion = completed.timeline.find((fact) => fact.type === 'request.completed')!;
    expect(completed.final).toBe(true);
    expect(completed.destruction).toMatchObject({ destroyed: true, at: completion.at, seq: completion.seq, ciphertext_stored: true });
    expect(fingerprints(completed)[org.member.id]).toBe(replacement.fingerprint);
  });

  it('does not verify when it names a destruction that a new link followed', async () => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'John Roe', justification: 'The router admin password', recipients: [org.owner.email] },
    });
    const id: string = created.body.request.id;
    expect((await service.call('POST', `/requests/${id}/revoke`, { key: org.key })).status).toBe(200);
    expect((await service.call('POST', `/requests/${id}/relink`, { key: org.key })).status).toBe(200);
    const live = await certificateOf(id);
    const revoke = live.timeline.find((fact) => fact.type === 'request.revoked')!;
    const relink = live.timeline.find((fact) => fact.type === 'request.relinked')!;
    // What a certificate built before this rule would have said, signed as served: the verifier still refuses it.
    const claimed = { ...live, final: true, destruction: { ...live.destruction, destroyed: true, at: revoke.at, reason: 'revoked_via_api', seq: revoke.seq } };
    const resigned = await signerOf(service.deps).sign((({ signature: _signature, ...unsigned }) => unsigned)(claimed));
    const outcome = await verifyCertificate(resigned, await jwks());
    expect(outcome.ok ? 'ok' : outcome.reason).toBe(
      `destruction: entry ${relink.seq} ("request.relinked") follows the destruction it names, entry ${revoke.seq}`,
    );
  });
});
