/**
 * The single-file verifier (tools/verify-custody-certificate.mjs) on certificates the running
 * service issues, run as an auditor runs it: the file alone in a folder outside the repository,
 * started with `node`, with the JWKS saved beforehand (test/support/standalone-verifier.ts). Each
 * verdict must be the service's own verifier's (lambdas/core/custody/verify.ts), word for word: the
 * genuine JSON and PDF certificates, and tampered ones (a changed field, a changed signature, an
 * unknown kid, a wrong alg, another spelling, a key set without the key).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';
import { verifyAgreement, verifyCertificateText } from '../../lambdas/core/custody/verify.ts';
import { makeKey } from '../support/custody-fixtures.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { createShareAs } from '../support/shares.ts';
import { loadStandaloneVerifier, runStandalone } from '../support/standalone-verifier.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { withOneByteChanged } from '../support/verifier-cli.ts';
import { movableClock } from '../support/webhooks.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let auditorKey: string;
/** The JWKS as served, saved by the auditor before verifying. */
let jwksText: string;
let jwks: Jwks;
/** Certificates the service issued: the JSON text as served, by what they are of. */
const issued = new Map<string, string>();
/** The PDFs the service issued for some of them. */
const pdfs = new Map<string, Uint8Array>();

const standalone = await loadStandaloneVerifier();

const served = async (path: string) => {
  clock.advance(1_000);
  const answer = await service.call('GET', path, { key: auditorKey });
  expect(answer.status, answer.text).toBe(200);
  return answer.text;
};

const servedPdf = async (path: string) => {
  const response = await fetch(`${service.baseUrl.replace('localhost', '127.0.0.1')}${path}?format=pdf`, { headers: { Authorization: `Bearer ${auditorKey}` } });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
};

const createRequest = async (extra: Record<string, unknown> = {}) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [org.owner.email], ...extra },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.request.id as string;
};

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Auditor Örg' });
  auditorKey = await service.createKey(org.orgId, { scopes: ['events:read'], name: 'Auditor' });
  const keys = await service.call('GET', '/.well-known/jwks.json');
  expect(keys.status).toBe(200);
  jwksText = keys.text;
  jwks = keys.body as Jwks;

  const pending = await createRequest({ ticket_ref: 'INC-1' });
  issued.set('a pending request', await served(`/requests/${pending}/certificate`));

  const completed = await createRequest({ ticket_ref: 'INC-2' });
  for (const status of ['open', 'pending', 'open']) {
    expect((await service.call('POST', '/tickets/INC-2/status', { key: org.key, body: { status } })).status).toBe(202);
  }
  await submitAsSubject(service, completed, clock, { envelope: { v: 1, ciphertext: randomBytes(24).toString('base64'), recipients: [] }, attachments: [] });
  expect((await service.call('POST', `/requests/${completed}/complete`, { key: org.key })).status).toBe(200);
  issued.set('a completed request', await served(`/requests/${completed}/certificate`));
  pdfs.set('a completed request', await servedPdf(`/requests/${completed}/certificate`));

  const share = await createShareAs(await MemberBrowser.signIn(service, org.owner.email));
  issued.set('a share', await served(`/shares/${share.id}/certificate`));
  pdfs.set('a share', await servedPdf(`/shares/${share.id}/certificate`));
});
afterAll(() => service?.stop());

/** The service's verdict, as the file prints it for `name`: the summary line, or `invalid: <name>: <reason>`. */
const libraryVerdict = async (text: string, keys: unknown = jwks) => {
  const outcome = await verifyCertificateText(text, keys as Jwks);
  return outcome.ok ? { ok: true as const, line: outcome.summary } : { ok: false as const, line: outcome.reason };
};

/**
 * Runs the file on one certificate (JSON text, or a PDF with `text` embedded) against a saved key
 * set, and checks it says what the service's verifier says.
 */
const expectSameVerdict = async (certificate: string | Uint8Array, { text = certificate as string, keys = jwksText } = {}) => {
  const name = typeof certificate === 'string' ? 'certificate.json' : 'certificate.pdf';
  const verdict = await libraryVerdict(text, JSON.parse(keys));
  const run = await runStandalone(['--jwks', 'jwks.json', name], { 'jwks.json': keys, [name]: certificate });
  if (verdict.ok) {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.split('\n')[0]).toBe(`${verdict.line} [${name}; keys from jwks.json]`);
  } else {
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 1, stdout: '', stderr: `invalid: ${name}: ${verdict.line}\n` });
  }
  return { verdict, run };
};

/** The served certificate with `change` made to its parsed document, as canonical text again. */
const changed = (text: string, change: (document: SignedCertificate) => void) => {
  const document = JSON.parse(text) as SignedCertificate;
  change(document);
  return canonicalJson(document);
};

describe('certificates the service issued', () => {
  it('each verifies in the file as in the service\'s verifier, with the same summary', async () => {
    expect([...issued.keys()]).toEqual(['a pending request', 'a completed request', 'a share']);
    for (const [what, text] of issued) {
      const { verdict, run } = await expectSameVerdict(text);
      expect(verdict.ok, `${what}: ${verdict.line}`).toBe(true);
      expect(run.stdout).toContain('  checked: the base64url Ed25519 signature is valid over {"document_sha256":"');
      // The file's RFC 8785 form is the service's, byte for byte: the served text is it.
      expect(standalone.canonicalJson(JSON.parse(text))).toBe(text);
      expect(canonicalize(JSON.parse(text))).toBe(text);
    }
    expect(issued.get('a completed request')).toContain('"ticket.status_received"');
  });

  it('the PDFs: the file verifies the JSON they embed, the same JSON the service\'s reader takes out', async () => {
    for (const [what, pdf] of pdfs) {
      const text = extractEmbeddedCertificate(pdf);
      expect(standalone.extractEmbeddedCertificate(pdf), what).toBe(text);
      const { verdict, run } = await expectSameVerdict(pdf, { text });
      expect(verdict.ok, `${what}: ${verdict.line}`).toBe(true);
      expect(run.stdout).toContain('  checked: the JSON embedded in the PDF (SHA-256 ');
    }
  });

  it('two certificates of the organisation: the same agreement line', async () => {
    const [a, b] = [issued.get('a completed request')!, issued.get('a share')!];
    const agreement = verifyAgreement([JSON.parse(a), JSON.parse(b)]);
    expect(agreement.ok).toBe(true);
    const run = await runStandalone(['--jwks', 'jwks.json', 'a.json', 'b.json'], { 'jwks.json': jwksText, 'a.json': a, 'b.json': b });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(agreement.ok && agreement.summary);
  });

  it('with --jwks URL it fetches the key set, and says that trusts the service at that moment', async () => {
    const text = issued.get('a share')!;
    const url = (JSON.parse(text) as SignedCertificate).issuer.jwks_url.replace('localhost', '127.0.0.1');
    const run = await runStandalone(['--jwks', url, 'certificate.json'], { 'certificate.json': text });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^note: fetching the key set from ${url.replace(/[.]/g, '\\.')} now \\(.+\\): this trusts whoever answers at that address at this moment`));
    expect(run.stdout).toMatch(new RegExp(`^valid: share .* \\[certificate\\.json; keys from ${url.replace(/[.]/g, '\\.')}\\]\\n`));
  });

  it('in a clone, the package\'s command runs the same file and prints the same', async () => {
    const text = issued.get('a completed request')!;
    const files = { 'jwks.json': jwksText, 'certificate.json': text };
    const shim = resolve(import.meta.dirname, '../../bin/verify-custody-certificate.js');
    const [auditor, clone] = await Promise.all([runStandalone(['--jwks', 'jwks.json', 'certificate.json'], files), runStandalone(['--jwks', 'jwks.json', 'certificate.json'], files, shim)]);
    expect(clone).toEqual(auditor);
    expect(auditor.code).toBe(0);
  });
});

describe('tampered certificates: refused, for the same reason', () => {
  const text = () => issued.get('a completed request')!;

  it('a changed field', async () => {
    const { verdict } = await expectSameVerdict(changed(text(), (document) => ((document as any).request.subject_name = 'Someone Else')));
    expect(verdict.line).toMatch(/^signature does not verify with key /);
  });

  it('a changed signature', async () => {
    const flipped = changed(text(), (document) => {
      const value = document.signature.value;
      document.signature.value = `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`;
    });
    expect((await expectSameVerdict(flipped)).verdict.line).toMatch(/^signature does not verify with key /);
    // The same signature spelled otherwise (its last character's unused bits set) is refused, not read leniently.
    const respelled = changed(text(), (document) => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const value = document.signature.value;
      // 64 bytes take 86 characters, whose last 4 bits are unused: setting one decodes to the same bytes.
      document.signature.value = `${value.slice(0, -1)}${alphabet[alphabet.indexOf(value.at(-1)!) | 1]}`;
      expect(Buffer.from(document.signature.value, 'base64url').equals(Buffer.from(value, 'base64url'))).toBe(true);
    });
    expect((await expectSameVerdict(respelled)).verdict.line).toBe('the signature value is not a base64url Ed25519 signature (64 bytes)');
  });

  it('an unknown kid', async () => {
    const stranger = await makeKey();
    const unknown = changed(text(), (document) => (document.signature.kid = stranger.jwk.kid));
    expect((await expectSameVerdict(unknown)).verdict.line).toBe(`no published key has kid ${stranger.jwk.kid}`);
    // The key the certificate names, missing from the saved key set.
    const withoutIt = JSON.stringify({ keys: [stranger.jwk] });
    expect((await expectSameVerdict(text(), { keys: withoutIt })).verdict.line).toMatch(/^no published key has kid /);
  });

  it('a wrong alg; EdDSA, the other name of the same algorithm, is accepted', async () => {
    const hs256 = changed(text(), (document) => (document.signature.alg = 'HS256'));
    expect((await expectSameVerdict(hs256)).verdict.line).toBe('signature algorithm "HS256" is not accepted (Ed25519 or EdDSA)');
    const eddsa = changed(text(), (document) => (document.signature.alg = 'EdDSA'));
    expect((await expectSameVerdict(eddsa)).verdict.ok).toBe(true);
  });

  it('another spelling of the same document, and one changed byte', async () => {
    const pretty = `${JSON.stringify(JSON.parse(text()), null, 2)}\n`;
    expect((await expectSameVerdict(pretty)).verdict.line).toMatch(/^the file is not the canonical JSON the service issued/);
    const byte = withOneByteChanged(Buffer.from(text()), text().indexOf('"issued_at"') + 20).toString('utf8');
    expect((await expectSameVerdict(byte)).verdict.ok).toBe(false);
  });
});
