/**
 * GET /v1/requests/{id}/certificate and GET /v1/shares/{id}/certificate over real HTTP (SPEC.md,
 * "GET /requests/{id}/certificate and GET /shares/{id}/certificate", "Errors"): the signed
 * `service-custody/v1` JSON (served as its own RFC 8785 canonical text, verified against
 * GET /.well-known/jwks.json), the PDF with the certificate embedded, 401 / 403 / 404 / 422, the
 * client scope, what the certificate states (requester, sealed-to fingerprints, commitment, every
 * fact's chain entry, the destruction fact), that it holds no secret, that certificates of one
 * organisation agree, and that rewriting the audit chain in the table is caught.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';
import { verifyAgreement, verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { auditSortKey } from '../../lambdas/store/keys.ts';
import { createHandler as createExpireWorker } from '../../lambdas/workers/expire.ts';
import { sha256Hex } from '../support/custody-fixtures.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, auditEntriesOfRequest, expectCreationResult, expectError, type AuditItem, type CreationResult } from '../support/shapes.ts';
import { createShareAs, type CreatedShare } from '../support/shares.ts';
import { submitAsSubject } from '../support/submission.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

const MINUTE = 60_000;

/** A served certificate, either kind: the test reads `request` or `share` as the path says. */
type Certificate = SignedCertificate & { request: any; share: any };
const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';
const MALFORMED_IDS = ['not-an-id', '01HZZZZZZZZZZZZZZZZZZZZZZZ', '01hzzzzzzzzzzzzzzzzzzzzzz', `${UNKNOWN_ID}0`];

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
/** Members with identity keys made here, so the sealed-to fingerprints are known. */
let alice: { id: string; name: string; email: string; fingerprint: string };
let bob: { id: string; name: string; email: string; fingerprint: string };
let aliceBrowser: MemberBrowser;
/** Only `events:read`. */
let eventsKey: string;
/** Every scope but `events:read`. */
let noEventsKey: string;
/** `events:read` scoped to the second client. */
let clientKey: string;
let secondClient: { id: string; name: string };
let other: TestOrganisation;

/** Every secret given to or shown by the service in this file: no certificate may hold one. */
const secrets: string[] = [];
/** Challenge codes are six digits: matched only as a whole number, never inside a longer run. */
const codes: string[] = [];
/** Every certificate text served (JSON answers and the JSON embedded in PDFs). */
const served: string[] = [];

const expectNoSecret = (text: string, where: string) => {
  for (const secret of secrets) expect(text.includes(secret), `${where} holds the secret ${secret.slice(0, 12)}...`).toBe(false);
  for (const code of codes) expect(new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(text), `${where} holds the challenge code ${code}`).toBe(false);
};

const keyedMember = async (orgId: string, name: string) => {
  const key = identityKey();
  const email = `${name.split(' ')[0].toLowerCase()}-${orgId.slice(-6)}@example.com`;
  const member = await service.admin.addMember({ orgId, name, email, role: 'member', identityKey: key });
  return { id: member.id, name, email, fingerprint: key.fingerprint };
};

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Custody Org' });
  alice = await keyedMember(org.orgId, 'Alice Archer');
  bob = await keyedMember(org.orgId, 'Bob Baker');
  const client = await service.admin.createClient(org.orgId, 'Second Client Ltd');
  secondClient = { id: client.id, name: client.name };
  eventsKey = await service.createKey(org.orgId, { scopes: ['events:read'], name: 'Auditor' });
  noEventsKey = await service.createKey(org.orgId, { scopes: ['requests:read', 'requests:write', 'tickets:write', 'webhooks:write'], name: 'No events' });
  clientKey = await service.createKey(org.orgId, { scopes: ['events:read', 'requests:read'], clientId: secondClient.id, name: 'Client auditor' });
  other = await service.createOrganisation({ name: 'Neighbour Org' });
  secrets.push(org.key, eventsKey, noEventsKey, clientKey, other.key);
  await signInAlice();
});

/** A fresh session for Alice (the expiry test moves the clock past earlier sessions' end). */
const signInAlice = async () => {
  aliceBrowser = await MemberBrowser.signIn(service, alice.email);
  secrets.push(aliceBrowser.cookie!.split('=')[1], aliceBrowser.csrf!);
};
afterAll(() => service?.stop());

// --- helpers -------------------------------------------------------------------------------

const jwks = async (): Promise<Jwks> => {
  const answer = await service.call('GET', '/.well-known/jwks.json');
  expect(answer.status, answer.text).toBe(200);
  return answer.body as Jwks;
};

/** POST /requests with the all-scope key (challenge mode, so a code is shown once); its secrets are noted. */
const createRequest = async (extra: Record<string, unknown> = {}, key = org.key): Promise<CreationResult> => {
  const answer = await service.call('POST', '/requests', {
    key,
    body: {
      subject_name: 'Jane Doe',
      justification: 'Need the firewall admin password',
      recipients: [alice.email, bob.email],
      verification_mode: 'challenge',
      ...extra,
    },
  });
  expect(answer.status, answer.text).toBe(201);
  const created = expectCreationResult(answer.body);
  secrets.push(created.link!, created.link_without_fragment!, new URL(created.link_without_fragment!).pathname.split('/').pop()!);
  if (created.challenge_code) codes.push(created.challenge_code);
  return created;
};

/** Submitted as the subject's browser would, with stand-in ciphertext and wrapped keys that are noted as secrets. */
const submit = async (requestId: string) => {
  const piece = () => randomBytes(24).toString('base64');
  const material = {
    envelope: {
      v: 1,
      ephemeral_public_key: piece(),
      iv: piece(),
      ciphertext: piece(),
      recipients: [
        { membership_id: alice.id, fingerprint: alice.fingerprint, iv: piece(), wrapped_key: piece() },
        { membership_id: bob.id, fingerprint: bob.fingerprint, iv: piece(), wrapped_key: piece() },
      ],
    },
    attachments: [{ iv: piece(), ciphertext: piece() }],
  };
  const { envelope, attachments } = material;
  secrets.push(envelope.ephemeral_public_key, envelope.ciphertext, ...envelope.recipients.flatMap((r) => [r.wrapped_key, r.iv]), attachments[0].ciphertext);
  await submitAsSubject(service, requestId, clock, material);
};

const getCertificate = (path: string, key: string | null = eventsKey) => service.call('GET', path, { key });

/** A 200 JSON certificate: headers, canonical text, signature and chain checks; the parsed document. */
const certificate = async (path: string, key: string = eventsKey): Promise<Certificate> => {
  clock.advance(1_000);
  const answer = await getCertificate(path, key);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  const document = answer.body as Certificate;
  expect(answer.text, 'the body is the canonical JSON of the signed document').toBe(canonicalJson(document));
  const outcome = await verifyCertificate(document, await jwks());
  expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
  served.push(answer.text);
  expectNoSecret(answer.text, `certificate ${path}`);
  return document;
};

/** The raw bytes of a PDF answer (the test service reads bodies as text). */
const fetchPdf = async (path: string, key: string = eventsKey) => {
  const response = await fetch(`${service.baseUrl.replace('localhost', '127.0.0.1')}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
};

const requestCertificatePath = (id: string, query = '') => `/requests/${id}/certificate${query}`;
const shareCertificatePath = (id: string, query = '') => `/shares/${id}/certificate${query}`;

/** The stored audit item as the chain hashed it: without its storage attributes and its own hash. */
const contentOf = (item: AuditItem) => {
  const { pk: _pk, sk: _sk, kind: _kind, hash: _hash, ...content } = item as AuditItem & Record<string, unknown>;
  return content;
};

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

// --- errors -----------------------------------------------------------------------------------

describe('errors of both endpoints', () => {
  let requestId: string;
  let share: CreatedShare;

  beforeAll(async () => {
    requestId = (await createRequest()).request.id;
    await signInAlice();
    share = await createShareAs(aliceBrowser);
    secrets.push(share.link, share.token, ...share.material.secrets);
  });

  const paths = () => [requestCertificatePath(requestId), shareCertificatePath(share.id)];

  it('422 validation_failed with errors.format for format=xml (and any other format)', async () => {
    for (const path of paths()) {
      for (const format of ['xml', 'PDF', 'html', '']) {
        expectError(await getCertificate(`${path}?format=${format}`), 422, 'validation_failed', ['format']);
      }
    }
  });

  it('401 unauthenticated without a key or with a wrong one', async () => {
    const wrong = `${eventsKey.slice(0, -4)}${eventsKey.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const path of [...paths(), requestCertificatePath(UNKNOWN_ID), shareCertificatePath(UNKNOWN_ID)]) {
      expectError(await getCertificate(path, null), 401, 'unauthenticated');
      expectError(await getCertificate(path, wrong), 401, 'unauthenticated');
      expectError(await getCertificate(path, 'chs_live_not-a-key'), 401, 'unauthenticated');
    }
  });

  it('403 forbidden for a key without events:read', async () => {
    for (const path of [...paths(), requestCertificatePath(UNKNOWN_ID)]) {
      expectError(await getCertificate(path, noEventsKey), 403, 'forbidden');
      expectError(await getCertificate(`${path}?format=pdf`, noEventsKey), 403, 'forbidden');
    }
  });

  it('404 not_found for an unknown id, a malformed id, and another organisation\'s request or share', async () => {
    for (const kind of ['requests', 'shares']) {
      expectError(await getCertificate(`/${kind}/${UNKNOWN_ID}/certificate`), 404, 'not_found');
      expectError(await getCertificate(`/${kind}/${newId()}/certificate?format=pdf`), 404, 'not_found');
      for (const id of MALFORMED_IDS) expectError(await getCertificate(`/${kind}/${id}/certificate`), 404, 'not_found');
    }
    // The neighbour's own key reads them; this organisation's keys get 404.
    const theirs = await service.call('POST', '/requests', {
      key: other.key,
      body: { subject_name: 'Jane Doe', justification: 'Another organisation entirely', recipients: [other.owner.email] },
    });
    expect(theirs.status).toBe(201);
    secrets.push(theirs.body.link);
    const neighbour = await MemberBrowser.signIn(service, other.owner.email);
    const theirShare = await createShareAs(neighbour);
    secrets.push(theirShare.link, theirShare.token, ...theirShare.material.secrets);
    expect((await certificate(requestCertificatePath(theirs.body.request.id), other.key)).organisation.id).toBe(other.orgId);
    expect((await certificate(shareCertificatePath(theirShare.id), other.key)).organisation.id).toBe(other.orgId);
    for (const key of [org.key, eventsKey]) {
      expectError(await getCertificate(requestCertificatePath(theirs.body.request.id), key), 404, 'not_found');
      expectError(await getCertificate(shareCertificatePath(theirShare.id), key), 404, 'not_found');
    }
    expectError(await getCertificate(shareCertificatePath(share.id), other.key), 404, 'not_found');
    expectError(await getCertificate(requestCertificatePath(requestId), other.key), 404, 'not_found');
  });

  it('a client-scoped key gets 404 for every share, even one of its organisation', async () => {
    expectError(await getCertificate(shareCertificatePath(share.id), clientKey), 404, 'not_found');
    expectError(await getCertificate(shareCertificatePath(share.id, '?format=pdf'), clientKey), 404, 'not_found');
    expectError(await getCertificate(shareCertificatePath(UNKNOWN_ID), clientKey), 404, 'not_found');
  });

  it('the share certificate: 200 JSON and PDF, sealed-to fingerprint, creator, not final while live', async () => {
    const document = await certificate(shareCertificatePath(share.id));
    expect(document).toMatchObject({
      subject_kind: 'share',
      final: false,
      client: null,
      organisation: { id: org.orgId },
      destruction: { destroyed: false, at: null, reason: null, seq: null, scope: 'live_table', ciphertext_stored: true, backups: { point_in_time_recovery_days: 0, ciphertext_restorable_until: null } },
      share: {
        id: share.id,
        status: 'active',
        created_by: { membership_id: alice.id, name: alice.name, email: alice.email },
        sealed_to: { fingerprint: share.material.fingerprint },
        view_limit: 1,
        views: 0,
      },
    });
    expect(document.timeline.map((fact) => [fact.type, fact.event, fact.actor])).toEqual([['share.created', 'created', { type: 'member', label: alice.name }]]);
    const pdf = await fetchPdf(shareCertificatePath(share.id, '?format=pdf'));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(pdf.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const text = extractEmbeddedCertificate(pdf.bytes);
    const embedded = JSON.parse(text) as Certificate;
    const outcome = await verifyCertificate(embedded, await jwks());
    expect(outcome.ok ? 'ok' : outcome.reason).toBe('ok');
    expect(embedded).toMatchObject({ subject_kind: 'share', share: { id: share.id } });
    served.push(text);
    expectNoSecret(text, 'the share PDF certificate');
  });

  it('a share quoting a ticket names it in the certificate', async () => {
    const quoting = await createShareAs(aliceBrowser, { ticket_ref: 'INC-SHARE-1' });
    secrets.push(quoting.link, quoting.token, ...quoting.material.secrets);
    const document = await certificate(shareCertificatePath(quoting.id));
    expect(document.ticket).toEqual({ ref: 'INC-SHARE-1', external_id: null, integration_id: null, url: null });
  });
});

// --- agreement, secrets, tampering --------------------------------------------------------------

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

describe('a rewritten audit chain', () => {
  let tamper: TestOrganisation;
  let key: string;

  beforeAll(async () => {
    tamper = await service.createOrganisation({ name: 'Tamper Org' });
    key = tamper.key;
  });

  const create = async () => {
    const answer = await service.call('POST', '/requests', {
      key,
      body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [tamper.owner.email] },
    });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.request.id as string;
  };

  const auditKey = (seq: number) => ({ pk: `AUDIT#${tamper.orgId}`, sk: auditSortKey(seq) });

  /** Rewrites one stored entry's actor label, as someone with table access would. */
  const rewriteLabel = (seq: number, label: string) =>
    service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: auditKey(seq),
        UpdateExpression: 'SET #actor.#label = :label, #data.#actor.#label = :label',
        ExpressionAttributeNames: { '#actor': 'actor', '#label': 'label', '#data': 'data' },
        ExpressionAttributeValues: { ':label': label },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );

  const rewriteDetails = (seq: number, details: Record<string, unknown>) =>
    service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: auditKey(seq),
        UpdateExpression: 'SET #data.#details = :details',
        ExpressionAttributeNames: { '#data': 'data', '#details': 'details' },
        ExpressionAttributeValues: { ':details': details },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );

  /** Recomputes the stored entry's hash over its rewritten content, as a careful forger would. */
  const rehash = async (seq: number) => {
    const { Item } = await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: auditKey(seq), ConsistentRead: true }));
    const hash = sha256Hex(canonicalJson(contentOf(Item as AuditItem)));
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: auditKey(seq),
        UpdateExpression: 'SET #hash = :hash',
        ExpressionAttributeNames: { '#hash': 'hash' },
        ExpressionAttributeValues: { ':hash': hash },
      }),
    );
    return hash;
  };

  const fetched = async (id: string) => {
    const answer = await getCertificate(requestCertificatePath(id), key);
    expect(answer.status, answer.text).toBe(200);
    return answer.body as Certificate;
  };

  it('a rewritten entry fails verification naming the entry; rehashed, the next entry no longer links', async () => {
    const id = await create();
    await submitAsSubject(service, id, clock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });
    expect((await service.call('POST', `/requests/${id}/complete`, { key })).status).toBe(200);
    const stored = await auditEntriesOfRequest(service, tamper.orgId, id);
    expect(stored.map((item) => item.type)).toEqual(['request.created', 'request.submitted', 'request.completed']);
    // Consecutive entries of the organisation: each certificate entry links to the one before.
    expect(stored.map((item) => item.seq)).toEqual([stored[0].seq, stored[0].seq + 1, stored[0].seq + 2]);
    const before = await fetched(id);
    expect((await verifyCertificate(before, await jwks())).ok).toBe(true);
    const submitted = stored[1].seq;

    await rewriteLabel(submitted, 'Someone Else');
    const rewritten = await fetched(id);
    expect(rewritten.chain.entries[1].content.actor.label).toBe('Someone Else');
    const outcome = await verifyCertificate(rewritten, await jwks());
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toBe(`entry ${submitted}: hash does not match its content`);

    await rehash(submitted);
    const rehashed = await fetched(id);
    const relinked = await verifyCertificate(rehashed, await jwks());
    expect(relinked.ok).toBe(false);
    expect(!relinked.ok && relinked.reason).toContain(`entry ${submitted + 1}: prev_hash does not match entry ${submitted}'s hash`);
    const agreement = verifyAgreement([before, rehashed]);
    expect(agreement.ok).toBe(false);
    expect(!agreement.ok && agreement.reason).toContain(`seq ${submitted}`);
  });

  it("a rehashed entry whose successor belongs to another record verifies alone but disagrees with certificates fetched before and with the successor's", async () => {
    const first = await create();
    const second = await create();
    const [firstCreated] = await auditEntriesOfRequest(service, tamper.orgId, first);
    const [secondCreated] = await auditEntriesOfRequest(service, tamper.orgId, second);
    expect(secondCreated.seq).toBe(firstCreated.seq + 1);
    const before = await fetched(first);

    await rewriteDetails(firstCreated.seq, { note: 'rewritten later' });
    const rewritten = await fetched(first);
    const outcome = await verifyCertificate(rewritten, await jwks());
    expect(!outcome.ok && outcome.reason).toBe(`entry ${firstCreated.seq}: hash does not match its content`);

    await rehash(firstCreated.seq);
    const rehashed = await fetched(first);
    // Alone it holds together (its only entry hashes right, the head is a later entry)...
    expect((await verifyCertificate(rehashed, await jwks())).ok).toBe(true);
    // ...but it contradicts the certificate fetched before the rewrite, and the next record's certificate.
    const withBefore = verifyAgreement([before, rehashed]);
    expect(!withBefore.ok && withBefore.reason).toContain(`seq ${firstCreated.seq}`);
    const successor = await fetched(second);
    expect((await verifyCertificate(successor, await jwks())).ok).toBe(true);
    const withSuccessor = verifyAgreement([rehashed, successor]);
    expect(withSuccessor.ok).toBe(false);
    expect(!withSuccessor.ok && withSuccessor.reason).toMatch(/do not link|disagree/);
  });
});
