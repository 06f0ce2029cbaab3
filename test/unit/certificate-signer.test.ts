import { createHash, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { UnsignedCertificate } from '../../lambdas/core/custody/document.ts';
import { signingInput } from '../../lambdas/core/custody/signing-input.ts';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import type { SigningKeyCustody, SigningKeyRecord, SigningKeyRegistry } from '../../lambdas/core/signing-keys.ts';
import { CertificateSigner } from '../../lambdas/core/use-cases/certificates/certificate-signer.ts';
import { KeyFileSigningCustody } from '../../lambdas/local/key-file-signing.ts';
import { makeCertificate, makeChain } from '../support/custody-fixtures.ts';

/** The registry's contract in memory: one current key, changed only on condition. */
const memoryRegistry = (): SigningKeyRegistry & { records: SigningKeyRecord[] } => {
  const records: SigningKeyRecord[] = [];
  let current: string | null = null;
  return {
    records,
    list: async () => [...records],
    current: async () => records.find((record) => record.kid === current) ?? null,
    makeCurrent: async (record, previousKid) => {
      if (current !== previousKid) throw new WriteConflict('the current signing key changed meanwhile');
      const previous = records.find((r) => r.kid === previousKid);
      if (previous) previous.retiredAt = record.createdAt;
      records.push(record);
      current = record.kid;
    },
  };
};

/** Records every message the custody is asked to sign (KMS signs RAW messages of at most 4,096 bytes). */
const recording = (inner: SigningKeyCustody) => {
  const messages: Uint8Array[] = [];
  const custody: SigningKeyCustody = { ...inner, initialKey: () => inner.initialKey(), newKey: () => inner.newKey(), sign: (ref, message) => (messages.push(message), inner.sign(ref, message)) };
  return { custody, messages };
};

const clock = { now: () => new Date('2026-11-23T10:00:00.000Z') };
const bigCertificate = () => makeCertificate(makeChain(80), { seqs: Array.from({ length: 80 }, (_, i) => i + 1) }) as UnsignedCertificate;

describe('CertificateSigner', () => {
  it('asks the key custody to sign only the short signing input, however large the certificate', async () => {
    const { custody, messages } = recording(KeyFileSigningCustody.inMemory());
    const signer = new CertificateSigner(custody, memoryRegistry(), clock);
    const document = bigCertificate();
    expect(canonicalJson(document).length).toBeGreaterThan(20_000);
    const signed = await signer.sign(document);
    expect(messages).toHaveLength(1);
    const digest = createHash('sha256').update(canonicalJson(document)).digest('hex');
    expect(new TextDecoder().decode(messages[0])).toBe(signingInput(digest));
    expect(messages[0]!.length).toBeLessThan(200);
    const key = await signer.currentKey();
    const publicKey = { key: { kty: 'OKP', crv: 'Ed25519', x: key.jwk.x }, format: 'jwk' } as const;
    expect(verify(null, messages[0]!, (await import('node:crypto')).createPublicKey(publicKey), Buffer.from(signed.signature.value, 'base64url'))).toBe(true);
    expect(signed.signature).toEqual({ alg: 'Ed25519', kid: key.kid, value: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/) });
  });

  it('registers the initial key once, then rotates to a new one and retires the old', async () => {
    const registry = memoryRegistry();
    const signer = new CertificateSigner(KeyFileSigningCustody.inMemory(), registry, clock);
    const first = await signer.currentKey();
    expect(await signer.currentKey()).toBe(first);
    const { current, retired } = await signer.rotate();
    expect(retired).toMatchObject({ kid: first.kid, retiredAt: current.createdAt });
    expect(registry.records.map((r) => [r.kid, r.retiredAt])).toEqual([
      [first.kid, current.createdAt],
      [current.kid, null],
    ]);
    expect((await signer.jwks()).keys.map((k) => k.kid)).toEqual([current.kid, first.kid]);
  });

  it('publishes the keys without writing: before the first certificate, the key it will be signed with, and nothing registered', async () => {
    const registry = memoryRegistry();
    const readOnly: SigningKeyRegistry = {
      ...registry,
      makeCurrent: async () => {
        throw new Error('the JWKS wrote the signing key registry');
      },
    };
    const custody = KeyFileSigningCustody.inMemory();
    const published = await new CertificateSigner(custody, readOnly, clock).jwks();
    expect(published.keys).toHaveLength(1);
    expect(registry.records).toEqual([]);
    // The certificate function registers that same key when it signs.
    const signed = await new CertificateSigner(custody, registry, clock).sign(bigCertificate());
    expect(signed.signature.kid).toBe(published.keys[0]!.kid);
    expect(registry.records.map((r) => r.kid)).toEqual([published.keys[0]!.kid]);
    expect((await new CertificateSigner(custody, readOnly, clock).jwks()).keys.map((k) => k.kid)).toEqual([published.keys[0]!.kid]);
  });
});
