import type { Policy, RateLimits, VerificationMode } from './model.ts';

export const DEFAULT_POLICY: Policy = {
  ttlOptionsMinutes: [60, 1440, 4320, 10080],
  defaultTtlMinutes: 1440,
  minimumVerification: 'none',
  defaultVerification: 'challenge',
  linkLifetimeMinutes: 4320,
  ticket: {
    closeStatuses: ['resolved', 'closed'],
    trustUnverifiedWebhooks: false,
    gracePeriodMinutes: 0,
    revokeUnsubmittedOnClose: false,
  },
  rotationSignal: false,
};

export const DEFAULT_RATE_LIMITS: RateLimits = { perKeyPerMinute: 600, perOrgPerMinute: 1200 };

/**
 * How much a verification mode asks of the subject. `either` is weaker than a single fixed
 * factor because the subject picks the easier one; `both` is the strongest.
 */
const STRENGTH: Record<VerificationMode, number> = { none: 0, either: 1, challenge: 2, email_otp: 2, both: 3 };

export const meetsMinimum = (mode: VerificationMode, minimum: VerificationMode) =>
  STRENGTH[mode] >= STRENGTH[minimum];

export const needsChallengeCode = (mode: VerificationMode) =>
  mode === 'challenge' || mode === 'either' || mode === 'both';

export const needsSubjectEmail = (mode: VerificationMode) =>
  mode === 'email_otp' || mode === 'either' || mode === 'both';
