import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const sha256Hex = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');
export const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest();
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');
/** What randomToken() makes by default (32 bytes, base64url): a value sent for one that is not so shaped is no token. */
export const RANDOM_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Constant-time comparison of two hex digests of equal length. */
export const sameDigest = (a: string, b: string) => {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
};
