import type { Policy, RateLimits } from '#core/model.ts';
import { ttlText, VERIFICATION_TEXT } from '../../web/app/request-words.ts';

/**
 * An organisation's policy and rate limits in plain words for `show-org`, in the application's
 * words for the same settings (web/app/request-words.ts), each with the value a flag of set-policy
 * takes in brackets where a word alone would not say which.
 */
const verification = (mode: string) => `${(VERIFICATION_TEXT[mode] ?? mode).toLowerCase()} (${mode})`;

/** `a`, `a or b`, `a, b or c`. */
const alternatives = (words: readonly string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

export const policyFacts = (policy: Policy): Array<[string, string]> => [
  ['Credentials kept for', `${alternatives(policy.ttlOptionsMinutes.map(ttlText))}, as a request chooses; ${ttlText(policy.defaultTtlMinutes)} by default`],
  [
    'Subject verification',
    `${verification(policy.defaultVerification)} by default; ${policy.minimumVerification === 'none' ? 'no minimum' : `no request asks for less than ${verification(policy.minimumVerification)}`}`,
  ],
  ["Subject's link valid for", ttlText(policy.linkLifetimeMinutes)],
  ['Ticket counts as closed', policy.ticket.closeStatuses.length > 0 ? `when its status is ${alternatives(policy.ticket.closeStatuses)}` : 'never'],
  [
    'Unverified ticket statuses',
    policy.ticket.trustUnverifiedWebhooks ? 'trusted: a close may destroy a submitted credential' : 'not trusted: they are recorded and destroy nothing',
  ],
  [
    'On a trusted close',
    policy.ticket.gracePeriodMinutes > 0
      ? `a submitted credential is destroyed ${ttlText(policy.ticket.gracePeriodMinutes)} later, unless the ticket reopens first`
      : 'a submitted credential is destroyed at once',
  ],
  ['Unsubmitted requests', policy.ticket.revokeUnsubmittedOnClose ? 'revoked on a trusted close of their ticket' : 'left alone when their ticket closes'],
  ['Rotation signal', policy.rotationSignal ? 'on: every completed handover recommends rotating the credential' : 'off'],
];

export const rateLimitText = (limits: RateLimits) => `${limits.perKeyPerMinute} calls a minute per API key; ${limits.perOrgPerMinute} for the whole organisation`;
