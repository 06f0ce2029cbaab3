import { createPublicKey } from 'node:crypto';
import { sha256Hex } from './hashing.ts';

/**
 * An identity key is an ECDH P-256 public key in SPKI DER, base64. Its fingerprint is the
 * SHA-256 of that DER, lower-case hex: what a browser computes with WebCrypto's exportKey('spki').
 */
export const keyFingerprint = (spkiBase64: string) => sha256Hex(Buffer.from(spkiBase64, 'base64'));

/** Parses and checks a public key; throws when it is not an EC P-256 key. */
export const normaliseIdentityKey = (pemOrBase64: string) => {
  const input = pemOrBase64.includes('-----BEGIN')
    ? createPublicKey(pemOrBase64)
    : createPublicKey({ key: Buffer.from(pemOrBase64, 'base64'), format: 'der', type: 'spki' });
  const details = input.asymmetricKeyDetails;
  if (input.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    throw new Error('identity keys must be EC P-256 public keys');
  }
  const spki = input.export({ format: 'der', type: 'spki' }).toString('base64');
  return { publicKey: spki, fingerprint: keyFingerprint(spki) };
};
