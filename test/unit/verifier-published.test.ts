/**
 * What the README and docs/certificates-and-shares.md publish about the single-file verifier stays
 * true: the SHA-256 the README prints is the file's (and no page prints another), the file the
 * "Verifying" paragraph names is the one the PDF names, and its words for the signed bytes rebuild
 * the bytes a real signature verifies over. (The PDF's own words are held to the same in
 * certificate-pdf.test.ts.)
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { SIGNED_BYTES_TEMPLATE, VERIFIER_PATH } from '../../lambdas/http/certificates/render-pdf.ts';
import { jwksOf, makeCertificate, makeChain, makeKey, signCertificate } from '../support/custody-fixtures.ts';
import { VERIFIER } from '../support/standalone-verifier.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const CERTIFICATES_PAGE = 'docs/certificates-and-shares.md';
const CERTIFICATES = readFileSync(resolve(ROOT, CERTIFICATES_PAGE), 'utf8');
const PUBLISHED_SHA = /SHA-256 of `([^`]+)`: `([0-9a-f]{64})`/g;

/** The certificates page's paragraph on verifying certificates, up to the next paragraph heading of its section. */
const verifying = () => {
  const start = CERTIFICATES.indexOf('**Verifying.**');
  expect(start, `${CERTIFICATES_PAGE} has its "Verifying." paragraph`).toBeGreaterThan(0);
  return CERTIFICATES.slice(start, CERTIFICATES.indexOf('**Keys.**', start));
};

describe('the README and the certificates page on the single-file verifier', () => {
  test('the README prints the SHA-256 the file has now', () => {
    const published = [...README.matchAll(PUBLISHED_SHA)];
    expect(published.map(([, path]) => path)).toEqual([VERIFIER_PATH]);
    const actual = createHash('sha256').update(readFileSync(resolve(ROOT, VERIFIER_PATH))).digest('hex');
    expect(published[0][2], `README.md: set the SHA-256 of ${VERIFIER_PATH} to ${actual}`).toBe(actual);
  });

  test('no docs page prints a SHA-256 of its own, and the "Verifying" paragraph points to the README\'s', () => {
    const docs = readdirSync(resolve(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    const elsewhere = docs.flatMap((name) =>
      [...readFileSync(resolve(ROOT, 'docs', name), 'utf8').matchAll(PUBLISHED_SHA)].map(([line]) => `docs/${name}: ${line}`),
    );
    expect(elsewhere).toEqual([]);
    expect(verifying()).toContain('check its SHA-256 against the one the [README](../README.md#your-first-handoff) publishes');
  });

  test('names the file the PDF names, and the tests run', () => {
    expect(resolve(ROOT, VERIFIER_PATH)).toBe(VERIFIER);
    expect(verifying()).toContain(`\`${VERIFIER_PATH}\``);
    expect(verifying()).toContain('node verify-custody-certificate.mjs --jwks jwks.json certificate.json');
  });

  test('says which bytes are signed, and how, in words that rebuild the bytes a real signature verifies', async () => {
    const text = verifying().replace(/\s+/g, ' ');
    expect(text).toContain(
      'the UTF-8 of `{"document_sha256":"D","format":"service-custody/v1"}`, where D is the lower-case hex SHA-256 of the RFC 8785 canonical JSON of the certificate without its `signature` member',
    );
    expect(text).toContain('`signature.value` is the 64-byte signature in base64url without padding');
    // The same bytes as the PDF shows.
    const template = /`(\{"document_sha256":"D",[^`]*\})`/.exec(text)![1];
    expect(template).toBe(SIGNED_BYTES_TEMPLATE);

    // Checked as the words say, with nothing of the service's verifier: a real certificate verifies.
    const key = await makeKey();
    const certificate = signCertificate(makeCertificate(makeChain(4)), key);
    const { signature, ...unsigned } = certificate;
    const digest = createHash('sha256').update(canonicalJson(unsigned), 'utf8').digest('hex');
    const bytes = Buffer.from(template.replace('"D"', `"${digest}"`), 'utf8');
    const { kty, crv, x } = jwksOf(key).keys[0];
    const publicKey = createPublicKey({ key: { kty, crv, x }, format: 'jwk' });
    expect(verify(null, bytes, publicKey, Buffer.from(signature.value, 'base64url'))).toBe(true);
    expect(Buffer.from(signature.value, 'base64url').toString('base64url')).toBe(signature.value);
  });
});
