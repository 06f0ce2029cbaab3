import { randomInt } from 'node:crypto';
import { sameDigest, sha256Hex } from './hashing.ts';

/**
 * Six-digit codes (the spoken challenge code, the emailed one-time code). Only a hash salted
 * with the request id and the code's purpose is stored; the attempt limit, not the hash, is what
 * stops guessing.
 */
export type CodePurpose = 'challenge' | 'email';

export const newSixDigitCode = () => String(randomInt(1_000_000)).padStart(6, '0');

export const codeHash = (requestId: string, purpose: CodePurpose, code: string) =>
  sha256Hex(purpose === 'challenge' ? `${requestId}:${code}` : `${requestId}:${purpose}:${code}`);

export const codeMatches = (requestId: string, purpose: CodePurpose, code: string, storedHash: string | null) =>
  storedHash !== null && sameDigest(codeHash(requestId, purpose, code), storedHash);
