import { describe, expect, it } from 'vitest';
import type { VerificationMode } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY, DEFAULT_RATE_LIMITS, meetsMinimum, needsChallengeCode, needsSubjectEmail, strengthenedMode } from '../../lambdas/core/policy.ts';

/**
 * policy.ts documents the partial order: none < either < {challenge, email_otp} < both, where
 * challenge and email_otp are different factors and neither satisfies the other.
 * Rows are the chosen mode, columns the minimum.
 */
const TABLE: Record<VerificationMode, Record<VerificationMode, boolean>> = {
  none: { none: true, either: false, challenge: false, email_otp: false, both: false },
  either: { none: true, either: true, challenge: false, email_otp: false, both: false },
  challenge: { none: true, either: true, challenge: true, email_otp: false, both: false },
  email_otp: { none: true, either: true, challenge: false, email_otp: true, both: false },
  both: { none: true, either: true, challenge: true, email_otp: true, both: true },
};
const pairs = Object.entries(TABLE).flatMap(([mode, row]) =>
  Object.entries(row).map(([minimum, expected]) => [mode, minimum, expected] as [VerificationMode, VerificationMode, boolean]),
);

describe('meetsMinimum', () => {
  it('covers all 25 pairs', () => expect(pairs).toHaveLength(25));

  it.each(pairs)('%s against minimum %s → %s', (mode, minimum, expected) => {
    expect(meetsMinimum(mode, minimum)).toBe(expected);
  });
});

describe('strengthenedMode (a new link under a minimum raised since the request was made)', () => {
  it.each([
    ['challenge', 'none', true, 'challenge'],
    ['none', 'challenge', false, 'challenge'],
    ['either', 'challenge', true, 'challenge'],
    ['email_otp', 'challenge', true, 'both'],
    ['none', 'email_otp', true, 'email_otp'],
    ['none', 'email_otp', false, null],
    ['none', 'either', false, 'challenge'],
    ['none', 'either', true, 'either'],
    ['challenge', 'both', true, 'both'],
    ['challenge', 'both', false, null],
  ] as const)('%s under a minimum of %s (subject email: %s) becomes %s', (mode, minimum, hasEmail, expected) => {
    const result = strengthenedMode(mode, minimum, hasEmail);
    expect(result).toBe(expected);
    if (result) expect(meetsMinimum(result, minimum) && meetsMinimum(result, mode)).toBe(true);
  });
});

describe('needsChallengeCode / needsSubjectEmail', () => {
  it.each([
    ['none', false, false],
    ['challenge', true, false],
    ['email_otp', false, true],
    ['either', true, true],
    ['both', true, true],
  ] as [VerificationMode, boolean, boolean][])('%s: code %s, email %s', (mode, code, email) => {
    expect(needsChallengeCode(mode)).toBe(code);
    expect(needsSubjectEmail(mode)).toBe(email);
  });
});

describe('defaults', () => {
  it('are internally consistent and match the SPEC rate limits', () => {
    expect(DEFAULT_POLICY.ttlOptionsMinutes).toContain(DEFAULT_POLICY.defaultTtlMinutes);
    expect(meetsMinimum(DEFAULT_POLICY.defaultVerification, DEFAULT_POLICY.minimumVerification)).toBe(true);
    for (const ttl of DEFAULT_POLICY.ttlOptionsMinutes) {
      expect(ttl).toBeGreaterThanOrEqual(5);
      expect(ttl).toBeLessThanOrEqual(43200);
    }
    expect(DEFAULT_POLICY.ticket.closeStatuses).toEqual(['resolved', 'closed']);
    expect(DEFAULT_POLICY.ticket.trustUnverifiedWebhooks).toBe(false);
    expect(DEFAULT_RATE_LIMITS).toEqual({ perKeyPerMinute: 600, perOrgPerMinute: 1200 });
  });
});
