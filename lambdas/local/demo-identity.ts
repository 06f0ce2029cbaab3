import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { normaliseIdentityKey } from '#core/fingerprint.ts';

/**
 * For local use only: an ECDH P-256 identity key pair made on this machine, the private half
 * written to `privateKeyFile` (mode 600) and never to the table. In the product the member's
 * browser makes the pair and the private key never leaves it.
 */
export const generateDemoIdentityKey = (privateKeyFile: string) => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  mkdirSync(dirname(privateKeyFile), { recursive: true, mode: 0o700 });
  writeFileSync(privateKeyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString());
};

/** A recipient public key whose private half is thrown away: for tests and benchmarks. */
export const newIdentityPublicKey = () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString());
};
