import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyFingerprint, normaliseIdentityKey } from '../../lambdas/core/fingerprint.ts';

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;

describe('keyFingerprint', () => {
  it('is the lower-case hex SHA-256 of the SPKI DER', () => {
    const der = p256().export({ format: 'der', type: 'spki' });
    const expected = createHash('sha256').update(der).digest('hex');
    expect(keyFingerprint(der.toString('base64'))).toBe(expected);
    expect(keyFingerprint(der.toString('base64'))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches a fixed vector', () => {
    // SHA-256 of the three bytes 01 02 03.
    expect(keyFingerprint(Buffer.from([1, 2, 3]).toString('base64'))).toBe(
      '039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81',
    );
  });
});

describe('normaliseIdentityKey', () => {
  it('gives the same key and fingerprint for PEM and base64 DER input', () => {
    const key = p256();
    const pem = key.export({ format: 'pem', type: 'spki' }).toString();
    const der = key.export({ format: 'der', type: 'spki' });
    const fromPem = normaliseIdentityKey(pem);
    const fromDer = normaliseIdentityKey(der.toString('base64'));
    expect(fromPem).toEqual(fromDer);
    expect(fromPem.publicKey).toBe(der.toString('base64'));
    expect(fromPem.fingerprint).toBe(createHash('sha256').update(der).digest('hex'));
  });

  it('gives different fingerprints for different keys', () => {
    const a = normaliseIdentityKey(p256().export({ format: 'pem', type: 'spki' }).toString());
    const b = normaliseIdentityKey(p256().export({ format: 'pem', type: 'spki' }).toString());
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });

  it('reads base64 DER that happens to contain "BEGIN" as DER, not as PEM', () => {
    // A valid P-256 SPKI (compressed point) whose base64 holds the letters BEGIN.
    const b64 = 'MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgACdnD/BEGINfxougIVhcs86n8zX5Aj7tVNGEZKIrZrSo8=';
    expect(b64).toContain('BEGIN');
    const der = createPublicKey({ key: Buffer.from(b64, 'base64'), format: 'der', type: 'spki' }).export({ format: 'der', type: 'spki' });
    expect(normaliseIdentityKey(b64)).toEqual({
      publicKey: der.toString('base64'),
      fingerprint: createHash('sha256').update(der).digest('hex'),
    });
  });

  it('refuses an Ed25519 key', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    expect(() => normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString())).toThrow(
      /EC P-256/,
    );
    expect(() =>
      normaliseIdentityKey(publicKey.export({ format: 'der', type: 'spki' }).toString('base64')),
    ).toThrow(/EC P-256/);
  });

  it('refuses a P-384 key', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    expect(() => normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString())).toThrow(
      /EC P-256/,
    );
  });

  it('refuses an RSA key', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString())).toThrow(
      /EC P-256/,
    );
  });

  it('refuses bytes that are not a key', () => {
    expect(() => normaliseIdentityKey(Buffer.from('not a key at all').toString('base64'))).toThrow();
    expect(() => normaliseIdentityKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')).toThrow();
  });
});
