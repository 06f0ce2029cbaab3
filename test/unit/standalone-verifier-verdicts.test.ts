/**
 * tools/verify-custody-certificate.mjs, the single file auditors run, against the service's own
 * verifier (lambdas/core/custody/verify.ts): on generated certificates, tampered in every way the
 * checks name, both must give the same answer with the same reason; and the same for a retired
 * key, for key sets, and for the agreement between certificates.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { parseJwks, verifyAgreement, verifyCertificateText } from '../../lambdas/core/custody/verify.ts';
import { makeCertificate, rewriteEntry } from '../support/custody-fixtures.ts';
import { certificateSpec, chainOf, current, JWKS, said, signed, thrown } from '../support/generated-certificates.ts';
import { loadStandaloneVerifier } from '../support/standalone-verifier.ts';
import { tampered, tampering } from '../support/tampered-certificates.ts';

const standalone = await loadStandaloneVerifier();

describe('the same verdict as the service\'s verifier', () => {
  test('on generated certificates, genuine and tampered with: the same summary or the same reason', async () => {
    const verdicts = new Set<string>();
    await fc.assert(
      fc.asyncProperty(certificateSpec, tampering, async (spec, change) => {
        const { text, jwks } = tampered(spec, change);
        const library = said(await verifyCertificateText(text, jwks as Jwks));
        expect(said(standalone.verifyCertificateText(text, jwks))).toBe(library);
        verdicts.add(library);
      }),
      { numRuns: 4000 },
    );
    // The run reached every check: valid certificates (current and retired key) and failures of each kind.
    const seen = [...verdicts].join('\n');
    for (const expected of [
      /^valid: request .*\(Ed25519\)$/m,
      /^valid: share .*\(EdDSA\)$/m,
      /^valid: .*, a key retired at /m,
      /^invalid: not JSON/m,
      /^invalid: the file is not the canonical JSON/m,
      /^invalid: the certificate has no canonical JSON form/m,
      /^invalid: signature does not verify/m,
      /^invalid: signature algorithm/m,
      /^invalid: no published key has kid/m,
      /^invalid: the signature value is not a base64url/m,
      /^invalid: key .* has thumbprint/m,
      /^invalid: key .* is published for/m,
      /^invalid: entry \d+: hash does not match/m,
      /^invalid: timeline fact/m,
      /^invalid: destruction/m,
      /^invalid: entry \d+: prev_hash does not match/m,
      /^invalid: entry \d+: content\.orgId/m,
      /^invalid: entry 1: the organisation's first entry must link to the genesis hash/m,
      /^invalid: entry \d+: beyond the chain head/m,
      /^invalid: entry \d+: hash is not the chain head's hash/m,
      /^invalid: entry \d+: listed after entry/m,
      /^invalid: entry \d+: content\.prevHash/m,
      /^invalid: destruction: ciphertext_stored is false, but entry/m,
      /^invalid: destruction: at .*, but entry \d+ occurred at/m,
      /^invalid: destruction: names seq \d+, which the certificate does not carry/m,
      /^invalid: destruction: entry \d+ \("request\.relinked"\) follows the destruction it names/m,
      /^invalid: destruction: backups\.point_in_time_recovery_days/m,
      /^invalid: destruction: backups\.ciphertext_restorable_until/m,
      /^invalid: timeline fact \d+ .*: says the helpdesk verified it/m,
      /^valid: .*\(not final\)/m,
    ]) {
      expect(seen).toMatch(expected);
    }
  }, 120_000);

  test('a retired key still verifies, and the summary says so in both', async () => {
    const spec = fc.sample(certificateSpec, { numRuns: 1, seed: 7 })[0];
    const text = canonicalJson(signed({ ...spec, signer: 'retired' }));
    const library = said(await verifyCertificateText(text, JWKS));
    expect(library).toContain(', a key retired at 2026-02-01T00:00:00.000Z)');
    expect(said(standalone.verifyCertificateText(text, JWKS))).toBe(library);
  });

  test('key sets: the same keys kept, or the same reason refused', () => {
    const sets = [
      JWKS,
      { keys: [{ ...current.jwk, extra: 'dropped', retired_at: null }] },
      { keys: [{ kty: 'RSA', n: 'x', e: 'AQAB', kid: 'r1' }] },
      { keys: [{ ...current.jwk, x: 'AAAA' }] },
      { keys: [{ ...current.jwk, kid: '' }] },
      { keys: [{ ...current.jwk, alg: 5 }] },
      { keys: [{ ...current.jwk, created_at: 5 }] },
      { keys: [{ ...current.jwk, use: 'enc' }] },
      { keys: [null] },
      { keys: {} },
      [],
      null,
    ];
    for (const set of sets) expect(thrown(() => standalone.parseJwks(set))).toEqual(thrown(() => parseJwks(set)));
  });

  test('agreement between certificates: the same summary or the same reason', () => {
    const spec = fc.record({
      length: fc.integer({ min: 3, max: 12 }),
      picks: fc.array(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), { minLength: 2, maxLength: 4 }),
      heads: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      rewrite: fc.option(fc.record({ at: fc.nat(), rehash: fc.boolean(), which: fc.nat() }), { nil: undefined }),
      otherOrganisation: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(spec, ({ length, picks, heads, rewrite, otherOrganisation }) => {
        const chain = chainOf(Array.from({ length }, (_, i) => ({ step: i })), Array.from({ length }, (_, i) => i), 1);
        const rewritten = rewrite ? rewriteEntry(chain, (rewrite.at % length) + 1, { note: 'rewritten' }, rewrite.rehash) : chain;
        const certificates = picks.map((pick, index) => {
          const source = rewrite && rewrite.which % picks.length === index ? rewritten : chain;
          const seqs = source.filter((_, i) => pick[i]).map((entry) => entry.seq);
          const last = source[Math.max(...seqs, 1) - 1 + (heads[index] % (length - Math.max(...seqs, 1) + 1))];
          const certificate = makeCertificate(source, { seqs, head: { seq: last.seq, hash: last.hash }, certificateId: `cert_${index}` }) as any;
          if (otherOrganisation !== undefined && otherOrganisation % picks.length === index) {
            certificate.chain.organisation_id = 'org_other';
            certificate.organisation = { id: 'org_other', name: 'Other' };
          }
          return certificate as SignedCertificate;
        });
        expect(said(standalone.verifyAgreement(certificates))).toBe(said(verifyAgreement(certificates)));
      }),
      { numRuns: 500 },
    );
  });
});
