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
 * Which modes satisfy each policy minimum. The order is partial: `either` is weaker than a fixed
 * factor because the subject picks the easier one; `challenge` and `email_otp` are different
 * factors, so neither stands in for the other; `both` satisfies every minimum.
 */
const SATISFIES: Record<VerificationMode, readonly VerificationMode[]> = {
  none: ['none', 'either', 'challenge', 'email_otp', 'both'],
  either: ['either', 'challenge', 'email_otp', 'both'],
  challenge: ['challenge', 'both'],
  email_otp: ['email_otp', 'both'],
  both: ['both'],
};

export const meetsMinimum = (mode: VerificationMode, minimum: VerificationMode) => SATISFIES[minimum].includes(mode);

export const needsChallengeCode = (mode: VerificationMode) =>
  mode === 'challenge' || mode === 'either' || mode === 'both';

export const needsSubjectEmail = (mode: VerificationMode) =>
  mode === 'email_otp' || mode === 'either' || mode === 'both';

/**
 * The mode a request must be given a new link in under today's minimum: its own when that still
 * meets the minimum, else the weakest mode at least as strong as both that the request can use (a
 * mode that emails a code needs the subject's address); null when there is none.
 */
export const strengthenedMode = (mode: VerificationMode, minimum: VerificationMode, hasSubjectEmail: boolean): VerificationMode | null => {
  if (meetsMinimum(mode, minimum)) return mode;
  return SATISFIES[minimum].find((candidate) => SATISFIES[mode].includes(candidate) && (hasSubjectEmail || !needsSubjectEmail(candidate))) ?? null;
};
