/**
 * The log messages of failures a call tolerates, so the caller is still answered while nothing
 * else shows them: a link, code or sign-in message that was not sent, a schedule not armed or
 * cancelled. The stack counts each with a metric filter on the JSON log's `message` field and
 * alarms on the first (lib/operations.ts). The call sites log these constants and the filters are
 * built from them, so a reworded message cannot silently stop its alarm.
 */

/** A subject's link (email or SMS), or the requester's notice of a ticket-made request, was not sent. */
export const LINK_DELIVERY_FAILED = 'link delivery failed';

/** A member's sign-in or invitation email was not sent. */
export const SIGN_IN_EMAIL_FAILED = 'sign-in email could not be sent';

/** Which one-time schedules a request has (lambdas/adapters/eventbridge-scheduler.ts ScheduleKind). */
export type ScheduleFailureKind = 'expire' | 'purge';

/** Arming or cancelling a request's (or a share's) schedule failed: the sweep settles the request within minutes, but a failure that repeats (a lost right, a quota) needs a person. */
export const scheduleFailedMessage = (kind: ScheduleFailureKind) => `${kind} schedule failed; the sweep will cover it`;

/** Every message above, by the kind of failure its alarm reports. */
export const FAILURE_LOG_MESSAGES = {
  /** Email or SMS not sent. */
  delivery: [LINK_DELIVERY_FAILED, SIGN_IN_EMAIL_FAILED],
  /** An expiry or purge schedule not armed or not cancelled. */
  schedule: [scheduleFailedMessage('expire'), scheduleFailedMessage('purge')],
} as const satisfies Record<string, readonly string[]>;

export type FailureLogKind = keyof typeof FAILURE_LOG_MESSAGES;
