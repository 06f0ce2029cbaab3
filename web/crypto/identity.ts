import canonicalize from 'canonicalize';
import { fromBase64, toBase64, toBase64Url, toHex, utf8 } from './encoding.ts';

/**
 * Identity keys in the browser: ECDH P-256 pairs made with WebCrypto. The public half is sent to
 * the service as SPKI DER (base64); its fingerprint is the SHA-256 of that DER in hex, as the
 * service computes it (lambdas/core/fingerprint.ts).
 */
export const ECDH_P256 = { name: 'ECDH', namedCurve: 'P-256' } as const;

export const fingerprintOf = async (spkiBase64: string) => toHex(await crypto.subtle.digest('SHA-256', fromBase64(spkiBase64)));

export const importPublicKey = (spkiBase64: string) =>
  crypto.subtle.importKey('spki', fromBase64(spkiBase64), ECDH_P256, true, []);

export const exportPublicKey = async (key: CryptoKey) => toBase64(await crypto.subtle.exportKey('spki', key));

/**
 * The recipient commitment, recomputed where the subject is: the first 16 bytes, base64url, of
 * SHA-256 over the RFC 8785 canonical JSON of [{fingerprint, membership_id}] sorted by membership
 * id. The fingerprints are recomputed from the public keys served, so a swapped key shows.
 */
export const commitmentOf = async (recipients: Array<{ membershipId: string; publicKey: string }>) => {
  const entries = await Promise.all(
    recipients.map(async (r) => ({ membership_id: r.membershipId, fingerprint: await fingerprintOf(r.publicKey) })),
  );
  entries.sort((a, b) => (a.membership_id < b.membership_id ? -1 : a.membership_id > b.membership_id ? 1 : 0));
  const digest = await crypto.subtle.digest('SHA-256', utf8(canonicalize(entries) ?? ''));
  return toBase64Url(new Uint8Array(digest).subarray(0, 16));
};

/** A new identity pair. Extractable only so that a passphrase-protected backup can be made once. */
export const generateIdentityPair = () =>
  crypto.subtle.generateKey(ECDH_P256, true, ['deriveBits']) as Promise<CryptoKeyPair>;

const BACKUP_ITERATIONS = 600_000;

export interface KeyBackup {
  format: 'handoff-identity-backup/v1';
  kdf: 'PBKDF2-SHA256';
  iterations: number;
  salt: string;
  iv: string;
  ciphertext: string;
  public_key: string;
  fingerprint: string;
}

const backupKey = async (passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number) =>
  crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    await crypto.subtle.importKey('raw', utf8(passphrase), 'PBKDF2', false, ['deriveKey']),
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );

/** The private key, encrypted under a key derived from the member's passphrase, for a new browser. */
export const exportBackup = async (pair: CryptoKeyPair, passphrase: string): Promise<KeyBackup> => {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', pair.privateKey);
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await backupKey(passphrase, salt, BACKUP_ITERATIONS), pkcs8);
  const publicKey = await exportPublicKey(pair.publicKey);
  return {
    format: 'handoff-identity-backup/v1',
    kdf: 'PBKDF2-SHA256',
    iterations: BACKUP_ITERATIONS,
    salt: toBase64(salt),
    iv: toBase64(iv),
    ciphertext: toBase64(ciphertext),
    public_key: publicKey,
    fingerprint: await fingerprintOf(publicKey),
  };
};

/**
 * Proves that a private and a public key are one pair: ECDH with a throw-away pair gives the same
 * secret from both sides only if they are (not every WebCrypto checks this on import).
 */
export const halvesAgree = async (privateKey: CryptoKey, publicKey: CryptoKey) => {
  const probe = (await crypto.subtle.generateKey(ECDH_P256, false, ['deriveBits'])) as CryptoKeyPair;
  const [one, two] = await Promise.all([
    crypto.subtle.deriveBits({ name: 'ECDH', public: probe.publicKey }, privateKey, 256),
    crypto.subtle.deriveBits({ name: 'ECDH', public: publicKey }, probe.privateKey, 256),
  ]);
  const a = new Uint8Array(one);
  const b = new Uint8Array(two);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
};

/** A backup whose public key is not its private key's: the file was changed after it was made. */
export class BackupKeyMismatch extends Error {
  override readonly name = 'BackupKeyMismatch';
}

/**
 * Opens a backup. Only its private key is encrypted; the public key and fingerprint beside it are
 * plain text anyone who can write the file could replace (their own key, its fingerprint
 * recomputed), and the page registers the public key it is given. So the public key is checked to
 * be the private key's, and the fingerprint is computed here, never read from the file. The
 * private key is opened NON-extractable: it never leaves this browser again.
 */
export const importBackup = async (backup: KeyBackup, passphrase: string) => {
  const key = await backupKey(passphrase, fromBase64(backup.salt), backup.iterations);
  const pkcs8 = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(backup.iv) }, key, fromBase64(backup.ciphertext));
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, ECDH_P256, false, ['deriveBits']);
  const publicKey = await importPublicKey(backup.public_key).catch(() => null);
  if (!publicKey || !(await halvesAgree(privateKey, publicKey).catch(() => false))) {
    throw new BackupKeyMismatch('the backup\'s public key is not its private key\'s');
  }
  return { privateKey, publicKey: backup.public_key, fingerprint: await fingerprintOf(backup.public_key) };
};

/** Re-imports a fresh pair's private half as non-extractable, for keeping in IndexedDB. */
export const lockPrivateKey = async (pair: CryptoKeyPair) =>
  crypto.subtle.importKey('pkcs8', await crypto.subtle.exportKey('pkcs8', pair.privateKey), ECDH_P256, false, ['deriveBits']);
