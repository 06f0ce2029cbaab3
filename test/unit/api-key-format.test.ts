import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  apiKeyDisplayPrefix,
  apiKeyHash,
  isWellFormedApiKey,
  LIVE_KEY_PREFIX,
  newApiKeySecret,
} from '../../lambdas/core/api-key-format.ts';

describe('API key format', () => {
  it('is the live prefix followed by 43 base64url characters', () => {
    expect(LIVE_KEY_PREFIX).toBe('chs_live_');
    for (let i = 0; i < 50; i++) {
      const key = newApiKeySecret();
      expect(key).toMatch(/^chs_live_[A-Za-z0-9_-]{43}$/);
      expect(key).toHaveLength(LIVE_KEY_PREFIX.length + 43);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('makes a different key each time', () => {
    expect(new Set(Array.from({ length: 100 }, newApiKeySecret)).size).toBe(100);
  });

  it('refuses keys of the wrong shape', () => {
    const body = 'A'.repeat(43);
    expect(isWellFormedApiKey(`chs_live_${body}`)).toBe(true);
    expect(isWellFormedApiKey(`chs_live_${'A'.repeat(42)}`)).toBe(false);
    expect(isWellFormedApiKey(`chs_live_${'A'.repeat(44)}`)).toBe(false);
    expect(isWellFormedApiKey(`chs_test_${body}`)).toBe(false);
    expect(isWellFormedApiKey(body)).toBe(false);
    expect(isWellFormedApiKey(`chs_live_${'A'.repeat(42)}=`)).toBe(false);
    expect(isWellFormedApiKey(`chs_live_${'A'.repeat(42)}+`)).toBe(false);
    expect(isWellFormedApiKey(` chs_live_${body}`)).toBe(false);
    expect(isWellFormedApiKey(`chs_live_${body}\n`)).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('displays the prefix and six characters only', () => {
    const key = `chs_live_abcdefGHIJKL${'x'.repeat(31)}`;
    expect(apiKeyDisplayPrefix(key)).toBe('chs_live_abcdef');
  });

  it('hashes with SHA-256 hex of the whole key', () => {
    const key = `chs_live_${'A'.repeat(43)}`;
    expect(apiKeyHash(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });
});
