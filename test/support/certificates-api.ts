/**
 * The ground the custody certificate tests share (GET /v1/requests/{id}/certificate and
 * GET /v1/shares/{id}/certificate): a test service on a movable clock, an organisation with
 * members whose identity keys are known (so the sealed-to fingerprints are), keys of each scope
 * that matters, a second client and a neighbour organisation; the calls that create, submit and
 * fetch; and the record of every secret given or shown and every certificate served, so that no
 * certificate may be found to hold one. A file calls useCertificateService() (the service alone)
 * or useCustodyOrganisation() (the service and the organisation) before its tests, which fills
 * the bindings below.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import { MemberBrowser } from './member-browser.ts';
import { expectCreationResult, type AuditItem, type CreationResult } from './shapes.ts';
import { submitAsSubject } from './submission.ts';
import { identityKey, startTestService, type TestOrganisation, type TestService } from './test-service.ts';
import { movableClock } from './webhooks.ts';

/** A served certificate, either kind: the test reads `request` or `share` as the path says. */
export type Certificate = SignedCertificate & { request: any; share: any };

export const clock = movableClock();
export let service: TestService;
export let org: TestOrganisation;
/** Members with identity keys made here, so the sealed-to fingerprints are known. */
export let alice: { id: string; name: string; email: string; fingerprint: string };
export let bob: { id: string; name: string; email: string; fingerprint: string };
export let aliceBrowser: MemberBrowser;
/** Only `events:read`. */
export let eventsKey: string;
/** Every scope but `events:read`. */
export let noEventsKey: string;
/** `events:read` scoped to the second client. */
export let clientKey: string;
export let secondClient: { id: string; name: string };
export let other: TestOrganisation;

/** Every secret given to or shown by the service in this file: no certificate may hold one. */
export const secrets: string[] = [];
/** Challenge codes are six digits: matched only as a whole number, never inside a longer run. */
export const codes: string[] = [];
/** Every certificate text served (JSON answers and the JSON embedded in PDFs). */
export const served: string[] = [];

export const expectNoSecret = (text: string, where: string) => {
  for (const secret of secrets) expect(text.includes(secret), `${where} holds the secret ${secret.slice(0, 12)}...`).toBe(false);
  for (const code of codes) expect(new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(text), `${where} holds the challenge code ${code}`).toBe(false);
};

const keyedMember = async (orgId: string, name: string) => {
  const key = identityKey();
  const email = `${name.split(' ')[0].toLowerCase()}-${orgId.slice(-6)}@example.com`;
  const member = await service.admin.addMember({ orgId, name, email, role: 'member', identityKey: key });
  return { id: member.id, name, email, fingerprint: key.fingerprint };
};

/** The test service on the movable clock, started before the file's tests and stopped after them. */
export const useCertificateService = () => {
  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service?.stop());
};

/** The service, and in it the custody organisation, its members, keys and second client, and the neighbour. */
export const useCustodyOrganisation = () => {
  useCertificateService();
  beforeAll(async () => {
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
};

/** A fresh session for Alice (the expiry test moves the clock past earlier sessions' end). */
export const signInAlice = async () => {
  aliceBrowser = await MemberBrowser.signIn(service, alice.email);
  secrets.push(aliceBrowser.cookie!.split('=')[1], aliceBrowser.csrf!);
};

// --- calls -----------------------------------------------------------------------------------

export const jwks = async (): Promise<Jwks> => {
  const answer = await service.call('GET', '/.well-known/jwks.json');
  expect(answer.status, answer.text).toBe(200);
  return answer.body as Jwks;
};

/** POST /requests with the all-scope key (challenge mode, so a code is shown once); its secrets are noted. */
export const createRequest = async (extra: Record<string, unknown> = {}, key = org.key): Promise<CreationResult> => {
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
export const submit = async (requestId: string) => {
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

export const getCertificate = (path: string, key: string | null = eventsKey) => service.call('GET', path, { key });

/** A 200 JSON certificate: headers, canonical text, signature and chain checks; the parsed document. */
export const certificate = async (path: string, key: string = eventsKey): Promise<Certificate> => {
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
export const fetchPdf = async (path: string, key: string = eventsKey) => {
  const response = await fetch(`${service.baseUrl.replace('localhost', '127.0.0.1')}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
};

export const requestCertificatePath = (id: string, query = '') => `/requests/${id}/certificate${query}`;
export const shareCertificatePath = (id: string, query = '') => `/shares/${id}/certificate${query}`;

/** The stored audit item as the chain hashed it: without its storage attributes and its own hash. */
export const contentOf = (item: AuditItem) => {
  const { pk: _pk, sk: _sk, kind: _kind, hash: _hash, ...content } = item as AuditItem & Record<string, unknown>;
  return content;
};

