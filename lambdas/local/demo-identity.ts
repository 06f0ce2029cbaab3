import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { normaliseIdentityKey } from '#core/fingerprint.ts';

/**
 * An ECDH P-256 identity key pair made on this machine for a member (the demo's seed, the operator
 * CLI's --generate-key), the private half written to `privateKeyFile` (mode 600) and never to the
 * table. In the product the member's browser makes the pair and the private key never leaves it,
 * so a key made here is marked as the operator's: the member's own key replaces it at once.
 */
export const generateDemoIdentityKey = (privateKeyFile: string): { publicKey: string; fingerprint: string; madeBy: 'operator' } => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  mkdirSync(dirname(privateKeyFile), { recursive: true, mode: 0o700 });
  writeFileSync(privateKeyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return { ...normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString()), madeBy: 'operator' };
};

/** A recipient public key whose private half is thrown away: for tests and benchmarks. */
export const newIdentityPublicKey = () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString());
};
