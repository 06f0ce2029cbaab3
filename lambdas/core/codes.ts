import { randomInt } from 'node:crypto';
import type { CodeKey } from './code-key.ts';
import { sameDigest, sha256Hex } from './hashing.ts';

/**
 * Six-digit codes (the spoken challenge code, the emailed one-time code). Only a keyed hash is
 * stored: HMAC-SHA-256 under the code key (core/code-key.ts), bound to the request and the code's
 * purpose, so reading the table is not enough to recover a code by trying the 10^6 values. The
 * attempt limit is what stops guessing online.
 */
export type CodePurpose = 'challenge' | 'email';

/** Marks a stored value as a keyed hash; a bare 64-hex value is the older salted SHA-256. */
export const KEYED_CODE_PREFIX = 'hmac-sha256:';

export const CODE_SPACE = 1_000_000;

export const newSixDigitCode = () => String(randomInt(CODE_SPACE)).padStart(6, '0');

export const codeHash = async (key: CodeKey, requestId: string, purpose: CodePurpose, code: string) =>
  `${KEYED_CODE_PREFIX}${await key.mac(`${purpose}:${requestId}:${code}`)}`;

export const isKeyedCodeHash = (stored: string) => stored.startsWith(KEYED_CODE_PREFIX);

/** The hash stored before codes were keyed: SHA-256 salted with the request id (and the purpose, for email codes). */
export const legacyCodeHash = (requestId: string, purpose: CodePurpose, code: string) =>
  sha256Hex(purpose === 'challenge' ? `${requestId}:${code}` : `${requestId}:${purpose}:${code}`);

/** A code as typed, ready to compare with what is stored (applyChange decides synchronously, so the MAC is taken first). */
export interface TypedCode {
  keyed: string;
  legacy: string;
}

export const typedCode = async (key: CodeKey, requestId: string, purpose: CodePurpose, code: string): Promise<TypedCode> => ({
  keyed: await codeHash(key, requestId, purpose, code),
  legacy: legacyCodeHash(requestId, purpose, code),
});

/**
 * Whether the typed code is the stored one. A value stored before codes were keyed is still
 * compared as it was: `npm run admin -- seal-stored-secrets` re-hashes those, and until it has run
 * a subject must not lose an attempt to a format change. The old form adds no weakness here; it
 * is the value in the table that is weak, and the migration removes it.
 */
export const storedCodeMatches = (typed: TypedCode, stored: string | null) => {
  if (stored === null) return false;
  if (isKeyedCodeHash(stored)) return sameDigest(typed.keyed.slice(KEYED_CODE_PREFIX.length), stored.slice(KEYED_CODE_PREFIX.length));
  return sameDigest(typed.legacy, stored);
};

/**
 * The code behind a legacy (unkeyed) hash, found by trying every six-digit code: the very
 * weakness the keyed hash removes, used once by the migration to re-hash it. About a second.
 */
export const recoverLegacyCode = (requestId: string, purpose: CodePurpose, stored: string): string | null => {
  if (!/^[0-9a-f]{64}$/.test(stored)) return null;
  for (let n = 0; n < CODE_SPACE; n++) {
    const code = String(n).padStart(6, '0');
    if (legacyCodeHash(requestId, purpose, code) === stored) return code;
  }
  return null;
};
