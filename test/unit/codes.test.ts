/**
 * Six-digit codes as stored (core/codes.ts): an HMAC-SHA-256 under the code key, bound to the
 * request and the purpose, which reading the table does not undo; the older salted SHA-256 still
 * compared until the migration re-hashes it, and recovered by that migration.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeHash, KEYED_CODE_PREFIX, legacyCodeHash, recoverLegacyCode, storedCodeMatches, typedCode } from '../../lambdas/core/codes.ts';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';

const KEY = Buffer.alloc(32, 3);
const codeKey = { mac: async (message: string) => createHmac('sha256', KEY).update(message).digest('hex') };
const REQUEST = '01hzzzzzzzzzzzzzzzzzzzzre1';
const OTHER_REQUEST = '01hzzzzzzzzzzzzzzzzzzzzre2';

describe('codeHash', () => {
  it('is the marked HMAC-SHA-256 of purpose:request:code under the key', async () => {
    const expected = createHmac('sha256', KEY).update(`challenge:${REQUEST}:042917`).digest('hex');
    expect(await codeHash(codeKey, REQUEST, 'challenge', '042917')).toBe(`${KEYED_CODE_PREFIX}${expected}`);
  });

  it('cannot be found by trying every code without the key: a different key gives a different hash', async () => {
    const stored = await codeHash(codeKey, REQUEST, 'email', '042917');
    expect(await codeHash(KeyFileCodeKey.inMemory(), REQUEST, 'email', '042917')).not.toBe(stored);
    // Nor is it the salted hash a reader of the table could invert.
    expect(stored).not.toContain(legacyCodeHash(REQUEST, 'email', '042917'));
    expect(recoverLegacyCode(REQUEST, 'email', stored)).toBeNull();
  });
});

describe('storedCodeMatches', () => {
  it('matches the right code only, for the same request and purpose', async () => {
    const stored = await codeHash(codeKey, REQUEST, 'challenge', '042917');
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'challenge', '042917'), stored)).toBe(true);
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'challenge', '042918'), stored)).toBe(false);
    expect(storedCodeMatches(await typedCode(codeKey, OTHER_REQUEST, 'challenge', '042917'), stored)).toBe(false);
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'email', '042917'), stored)).toBe(false);
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'challenge', '042917'), null)).toBe(false);
  });

  it('still compares a hash stored before codes were keyed, so no subject loses an attempt before the migration runs', async () => {
    const legacyChallenge = createHash('sha256').update(`${REQUEST}:042917`).digest('hex');
    const legacyEmail = createHash('sha256').update(`${REQUEST}:email:042917`).digest('hex');
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'challenge', '042917'), legacyChallenge)).toBe(true);
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'challenge', '111111'), legacyChallenge)).toBe(false);
    expect(storedCodeMatches(await typedCode(codeKey, REQUEST, 'email', '042917'), legacyEmail)).toBe(true);
  });
});

describe('recoverLegacyCode', () => {
  it('finds the code behind an unkeyed hash by trying all 10^6 (the weakness the keyed hash removes)', () => {
    expect(recoverLegacyCode(REQUEST, 'challenge', createHash('sha256').update(`${REQUEST}:999999`).digest('hex'))).toBe('999999');
    expect(recoverLegacyCode(REQUEST, 'email', createHash('sha256').update(`${REQUEST}:email:000001`).digest('hex'))).toBe('000001');
    expect(recoverLegacyCode(REQUEST, 'challenge', 'f'.repeat(64))).toBeNull();
  });
});
