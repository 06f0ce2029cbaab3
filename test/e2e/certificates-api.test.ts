/**
 * GET /v1/requests/{id}/certificate over real HTTP, its 200s (SPEC.md, "GET /requests/{id}/certificate
 * and GET /shares/{id}/certificate"): the signed `service-custody/v1` JSON (served as its own
 * RFC 8785 canonical text, verified against GET /.well-known/jwks.json), the PDF with the
 * certificate embedded, the client scope, what the certificate states (requester, sealed-to
 * fingerprints, commitment, every fact's chain entry, the destruction fact); that certificates of
 * one organisation agree, and that none served here holds a secret.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';
import { verifyAgreement, verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { createHandler as createExpireWorker } from '../../lambdas/workers/expire.ts';
import {
  alice,
  aliceBrowser,
  bob,
  certificate,
  clientKey,
  clock,
  codes,
  contentOf,
  createRequest,
  expectNoSecret,
  fetchPdf,
  getCertificate,
  jwks,
  org,
  requestCertificatePath,
  secondClient,
  secrets,
  served,
  service,
  submit,
  useCustodyOrganisation,
  type Certificate,
} from '../support/certificates-api.ts';
import { sha256Hex } from '../support/custody-fixtures.ts';
import { auditEntries, auditEntriesOfRequest, expectError, type AuditItem } from '../support/shapes.ts';

const MINUTE = 60_000;

useCustodyOrganisation();

/** Every entry of the certificate is the stored audit item, whole; every fact names one of them. */
const expectEntriesAreTheChain = async (certificate: SignedCertificate, stored: AuditItem[]) => {
  expect(certificate.chain.entries.map((entry) => entry.seq)).toEqual(stored.map((item) => item.seq));
  for (const [index, entry] of certificate.chain.entries.entries()) {
    const item = stored[index];
    expect(entry.type).toBe(item.type);
    expect(entry.occurred_at).toBe(item.occurredAt);
    expect(entry.prev_hash).toBe(item.prevHash);
    expect(entry.hash).toBe(item.hash);
    expect(entry.content).toEqual(contentOf(item));
    expect(sha256Hex(canonicalJson(entry.content))).toBe(item.hash);
  }
  expect(certificate.timeline.map((fact) => [fact.seq, fact.type, fact.at])).toEqual(stored.map((item) => [item.seq, item.type, item.occurredAt]));
  const head = (await auditEntries(service, certificate.organisation.id)).at(-1)!;
  expect(certificate.chain.head.seq).toBeLessThanOrEqual(head.seq);
  expect(certificate.chain.head.seq).toBeGreaterThanOrEqual(stored.at(-1)!.seq);
};

// --- 200 --------------------------------------------------------------------------------------

describe('GET /v1/requests/{id}/certificate: 200', () => {
  it('answers the signed JSON as its canonical text, never cached, verifying against GET /.well-known/jwks.json', async () => {
    const created = await createRequest();
    const answer = await getCertificate(requestCertificatePath(created.request.id));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.text).toBe(canonicalJson(answer.body));
    expect(answer.text).toBe(canonicalJson(JSON.parse(answer.text)));
    expect(answer.headers.get('content-disposition')).toBe(`inline; filename="custody-certificate-${created.request.id}.json"`);

    const keys = await service.call('GET', '/.well-known/jwks.json');
    expect(keys.status).toBe(200);
    expect(keys.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(keys.body.keys.length).toBeGreaterThan(0);
    const document = answer.body as Certificate;
    expect(keys.body.keys.map((key: { kid: string }) => key.kid)).toContain(document.signature.kid);
    const outcome = await verifyCertificate(document, keys.body);
    expect(outcome.ok ? outcome.summary : outcome.reason).toMatch(/^valid: request /);
    // A byte changed in the signed content no longer verifies.
    const altered = { ...document, request: { ...document.request, subject_name: 'Someone Else' } };
    expect((await verifyCertificate(altered, keys.body)).ok).toBe(false);

    // format=json is the default, spelled out.
    const explicit = await certificate(requestCertificatePath(created.request.id, '?format=json'));
    expect(explicit.request.id).toBe(created.request.id);
    served.push(answer.text);
  });

  it('a pending request: not final, nothing destroyed; names the requester, the sealed-to fingerprints and the commitment', async () => {
    const created = await createRequest({ ticket_ref: 'INC-4711' });
    const document = await certificate(requestCertificatePath(created.request.id));
    expect(document).toMatchObject({
      format: 'service-custody/v1',
      subject_kind: 'request',
      final: false,
      organisation: { id: org.orgId, name: 'Custody Org' },
      client: { id: org.defaultClientId, name: 'Custody Org (internal)' },
      ticket: { ref: 'INC-4711', external_id: null, integration_id: null, url: null },
      // Locally there are no point-in-time backups: none will hold the ciphertext after its deletion.
      destruction: { destroyed: false, at: null, reason: null, seq: null, scope: 'live_table', ciphertext_stored: false, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } },
      issuer: { app_url: service.appUrl, jwks_url: `${service.appUrl}/.well-known/jwks.json` },
      signature: { alg: 'Ed25519' },
    });
    expect(document.certificate_id).toMatch(/^[0-9a-z]{26}$/);
    expect(document.issued_at).toBe(clock.now().toISOString());
    expect(document.request).toEqual({
      id: created.request.id,
      status: 'pending',
      subject_name: 'Jane Doe',
      requester: { membership_id: alice.id, name: alice.name, email: alice.email },
      recipients: [
        { membership_id: alice.id, label: alice.name, fingerprint: alice.fingerprint },
        { membership_id: bob.id, label: bob.name, fingerprint: bob.fingerprint },
      ],
      commitment: { value: created.commit, computed_by: 'server' },
    });
    expect(document.timeline).toEqual([
      { event: 'created', at: expect.any(String), seq: expect.any(Number), type: 'request.created', actor: { type: 'api', label: 'All scopes' }, reason: null },
    ]);
    await expectEntriesAreTheChain(document, await auditEntriesOfRequest(service, org.orgId, created.request.id));
  });

  it('a completed request: final, every fact (submitted, revealed, completed) on its chain entry, the destruction fact', async () => {
    const created = await createRequest();
    const id = created.request.id;
    await submit(id);
    const revealed = await aliceBrowser.call('POST', `/app/api/requests/${id}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    const before = await certificate(requestCertificatePath(id));
    expect(before).toMatchObject({ final: false, request: { status: 'submitted' }, destruction: { destroyed: false } });

    const completed = await service.call('POST', `/requests/${id}/complete`, { key: org.key });
    expect(completed.status, completed.text).toBe(200);
    const document = await certificate(requestCertificatePath(id));
    const stored = await auditEntriesOfRequest(service, org.orgId, id);
    expect(stored.map((item) => item.type)).toEqual(['request.created', 'request.submitted', 'request.revealed', 'request.completed']);
    await expectEntriesAreTheChain(document, stored);
    expect(document.timeline.map((fact) => [fact.event, fact.actor])).toEqual([
      ['created', { type: 'api', label: 'All scopes' }],
      ['submitted', { type: 'subject', label: 'Jane Doe' }],
      ['revealed', { type: 'member', label: alice.name }],
      ['completed', { type: 'api', label: 'All scopes' }],
    ]);
    const ending = stored.at(-1)!;
    expect(document.final).toBe(true);
    expect(document.request.status).toBe('completed');
    expect(document.timeline.at(-1)!.reason).toBe('completed_via_api');
    expect(document.destruction).toEqual({ destroyed: true, at: ending.occurredAt, reason: 'completed_via_api', seq: ending.seq, scope: 'live_table', ciphertext_stored: true, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } });
  });

  it('a revoked request: final, destroyed by the revoke fact', async () => {
    const created = await createRequest();
    const revoked = await service.call('POST', `/requests/${created.request.id}/revoke`, { key: org.key });
    expect(revoked.status, revoked.text).toBe(200);
    const document = await certificate(requestCertificatePath(created.request.id));
    const stored = await auditEntriesOfRequest(service, org.orgId, created.request.id);
    await expectEntriesAreTheChain(document, stored);
    expect(document.final).toBe(true);
    expect(document.request.status).toBe('revoked');
    expect(document.timeline.map((fact) => fact.type)).toEqual(['request.created', 'request.revoked']);
    // Revoked before anything was submitted: the service never held a ciphertext of it.
    expect(document.destruction).toEqual({ destroyed: true, at: stored[1].occurredAt, reason: 'revoked_via_api', seq: stored[1].seq, scope: 'live_table', ciphertext_stored: false, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } });
  });

  it('an expired request: final, destroyed by the expiry fact', async () => {
    const created = await createRequest();
    const expire = service.asWorker('expire', createExpireWorker(service.deps));
    clock.set(Date.parse(created.request.link_expires_at!) + MINUTE);
    expect(await expire({ requestId: created.request.id })).toEqual({ requestId: created.request.id, outcome: 'expired' });
    const document = await certificate(requestCertificatePath(created.request.id));
    const stored = await auditEntriesOfRequest(service, org.orgId, created.request.id);
    await expectEntriesAreTheChain(document, stored);
    expect(document.final).toBe(true);
    expect(document.request.status).toBe('expired');
    expect(document.timeline.map((fact) => [fact.type, fact.actor.type])).toEqual([
      ['request.created', 'api'],
      ['request.expired', 'system'],
    ]);
    expect(document.destruction).toEqual({ destroyed: true, at: stored[1].occurredAt, reason: 'expired', seq: stored[1].seq, scope: 'live_table', ciphertext_stored: false, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } });
  });

  it('answers a PDF with format=pdf: application/pdf, %PDF-, the signed certificate embedded', async () => {
    const created = await createRequest();
    await submit(created.request.id);
    expect((await service.call('POST', `/requests/${created.request.id}/complete`, { key: org.key })).status).toBe(200);
    const pdf = await fetchPdf(requestCertificatePath(created.request.id, '?format=pdf'));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="custody-certificate-${created.request.id}.pdf"`);
    expect(Buffer.from(pdf.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const text = extractEmbeddedCertificate(pdf.bytes);
    const embedded = JSON.parse(text) as Certificate;
    expect(text).toBe(canonicalJson(embedded));
    const outcome = await verifyCertificate(embedded, await jwks());
    expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
    expect(embedded).toMatchObject({ subject_kind: 'request', final: true, request: { id: created.request.id, status: 'completed' } });
    served.push(text);
    expectNoSecret(text, 'the PDF certificate');
    expectNoSecret(Buffer.from(pdf.bytes).toString('latin1'), 'the PDF bytes');
  });

  it("a client-scoped key gets its own client's request (200) and 404 for another client's", async () => {
    const own = await createRequest({ client_id: secondClient.id });
    const document = await certificate(requestCertificatePath(own.request.id), clientKey);
    expect(document.client).toEqual(secondClient);
    expect(document.request.id).toBe(own.request.id);
    const theirs = await createRequest();
    expectError(await getCertificate(requestCertificatePath(theirs.request.id), clientKey), 404, 'not_found');
    expectError(await getCertificate(requestCertificatePath(theirs.request.id, '?format=pdf'), clientKey), 404, 'not_found');
  });
});

// --- agreement, secrets ------------------------------------------------------------------------

describe('certificates of one organisation', () => {
  it('two requests, and one request fetched twice at different times, agree', async () => {
    const first = await createRequest();
    const second = await createRequest();
    await submit(first.request.id);
    const a1 = await certificate(requestCertificatePath(first.request.id));
    const b = await certificate(requestCertificatePath(second.request.id));
    expect((await service.call('POST', `/requests/${first.request.id}/complete`, { key: org.key })).status).toBe(200);
    const a2 = await certificate(requestCertificatePath(first.request.id));
    expect(a2.certificate_id).not.toBe(a1.certificate_id);
    expect(Date.parse(a2.issued_at)).toBeGreaterThan(Date.parse(a1.issued_at));
    expect(a2.chain.head.seq).toBeGreaterThan(a1.chain.head.seq);

    const both = verifyAgreement([a1, b]);
    expect(both.ok ? 'ok' : both.reason).toBe('ok');
    const twice = verifyAgreement([a1, a2]);
    expect(twice.ok ? 'ok' : twice.reason).toBe('ok');
    expect(twice.ok && twice.shared).toBe(a1.chain.entries.length);
    const all = verifyAgreement([a1, a2, b]);
    expect(all.ok ? 'ok' : all.reason).toBe('ok');
  });

  it('carries only the newest 20 of a routine kind (a ticket re-posting its status), counts the rest, and still verifies', async () => {
    const created = await createRequest({ ticket_ref: 'CHATTY-1' });
    for (let post = 0; post < 26; post++) {
      const answer = await service.call('POST', '/tickets/CHATTY-1/status', { key: org.key, body: { status: post % 2 ? 'open' : 'pending' } });
      expect(answer.status, answer.text).toBe(202);
    }
    const stored = (await auditEntriesOfRequest(service, org.orgId, created.request.id)).filter((entry) => entry.type === 'ticket.status_received');
    expect(stored).toHaveLength(26);
    const document = await certificate(requestCertificatePath(created.request.id));
    const carried = document.chain.entries.filter((entry) => entry.type === 'ticket.status_received');
    expect(carried.map((entry) => entry.seq)).toEqual(stored.slice(-20).map((entry) => entry.seq));
    expect(document.chain.omitted_entries).toBe(6);
    expect(document.chain.entries.some((entry) => entry.type === 'request.created')).toBe(true);
    expect(document.timeline.filter((fact) => fact.type === 'ticket.status_received')).toHaveLength(20);
  });

  it('no certificate served (JSON or embedded in a PDF) holds a link, token, code, ciphertext, wrapped key or API key secret', () => {
    expect(served.length).toBeGreaterThan(10);
    expect(secrets.length).toBeGreaterThan(20);
    expect(codes.length).toBeGreaterThan(5);
    for (const [index, text] of served.entries()) expectNoSecret(text, `certificate ${index + 1}`);
  });
});
