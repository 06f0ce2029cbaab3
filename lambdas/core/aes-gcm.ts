import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The parts AES-256-GCM produces, each base64, as a SealedSecret stores them. */
export interface AesGcmParts {
  iv: string;
  ciphertext: string;
  tag: string;
}

const ALGORITHM = 'aes-256-gcm';
// 96-bit IVs are GCM's native size; random ones are safe because every data key seals few values.
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const sealWithKey = (key: Buffer, plaintext: string, aad: Buffer): AesGcmParts => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), ciphertext: ciphertext.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
};

/** Throws when the key, the AAD or any part is not what sealed it. */
export const openWithKey = (key: Buffer, parts: AesGcmParts, aad: Buffer): string => {
  const iv = Buffer.from(parts.iv, 'base64');
  const tag = Buffer.from(parts.tag, 'base64');
  // Node would accept a truncated tag (down to 4 bytes) and so a far weaker check; insist on the full one.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('sealed secret is malformed (iv or tag length)');
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(parts.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new Error('sealed secret did not open: another key, another context, or altered', { cause });
  }
};
