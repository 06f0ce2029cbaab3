/**
 * The codes a request or a share stores, in the words the member application shows: a request's
 * status, the verification modes and a TTL's length (the new-request form, the policy and presets
 * pages, a request's facts), why a request or a share ended, why a request was given a new link,
 * and a trail entry's details made of these. One
 * table per kind of code, so every page says the same thing; the code itself stays in the
 * exports and in a title where someone may need to match it against the API.
 */
import type { RequestStatus } from '../../lambdas/core/model.ts';
import type { RelinkCause, RequestEndReason } from '../../lambdas/core/request-state.ts';
import type { ShareEndReason } from '../../lambdas/core/share.ts';

/** A request's status (lambdas/core/model.ts REQUEST_STATUSES), as its badge and its trail say it. */
export const STATUS_TEXT: Readonly<Record<RequestStatus, string>> = {
  pending: 'Pending',
  opened: 'Opened',
  submitted: 'Submitted',
  completed: 'Completed',
  revoked: 'Revoked',
  expired: 'Expired',
};

export const VERIFICATION_TEXT: Readonly<Record<string, string>> = {
  none: 'None',
  challenge: 'A code you give the subject by phone or in person',
  email_otp: 'A code emailed to the subject',
  either: 'Either code',
  both: 'Both codes',
};

/** Minutes as days, hours or minutes, whichever divides them. */
export const ttlText = (minutes: number) =>
  minutes % 1440 === 0 ? `${minutes / 1440} ${minutes === 1440 ? 'day' : 'days'}` : minutes % 60 === 0 ? `${minutes / 60} ${minutes === 60 ? 'hour' : 'hours'}` : `${minutes} minutes`;

/**
 * Why something ended or changed: a request's purge or revoke reason, a share's end reason, and
 * the `reason` other trail entries record. A share and a request that ended for the same cause
 * read the same.
 */
export const REASON_TEXT: Readonly<Record<RequestEndReason | ShareEndReason | 'recipient_key_changed' | 'recipient_can_open_again' | 'credential_handed_over', string>> = {
  completed_by_member: 'Completed by a member',
  completed_via_api: 'Completed through the API',
  revoked_by_member: 'Revoked by a member',
  revoked_via_api: 'Revoked through the API',
  revoked_by_operator: 'Revoked by the service operator',
  ticket_closed: 'Its ticket was closed',
  // A request's link or stored credential, or a share, reached the end of its time.
  expired: 'Its time ran out',
  view_limit_reached: 'Opened as many times as allowed',
  purged_by_member: 'Destroyed by a member',
  recipient_key_changed: 'A recipient’s key changed',
  recipient_can_open_again: 'A recipient can open it again',
  credential_handed_over: 'The credential was handed over',
};

/** Why a request was given a new link (lambdas/core/request-state.ts relinkCause). */
export const RELINK_CAUSE_TEXT: Readonly<Record<RelinkCause, string>> = {
  locked: 'The link was locked after too many wrong codes',
  recipient_key_changed: 'A recipient’s key changed',
  email_codes_used_up: 'Every code the link may email was used up',
  replaced: 'The link was replaced',
  revoked: 'The request had been revoked',
  expired: 'The link had expired',
};

const wordsOf = (table: Readonly<Record<string, string>>, code: string) => (Object.hasOwn(table, code) ? table[code] : null);

/** A stored code (`some_new_reason`, never words someone typed, such as a ticket status). */
const CODE = /^[a-z]+(?:_[a-z]+)+$/;
/** A code that no table knows yet, readable at least: `some_new_reason` as "some new reason"; anything else as it is. */
export const plainCode = (text: string) => (CODE.test(text) ? text.replace(/_/g, ' ') : text);

export const statusText = (code: string) => wordsOf(STATUS_TEXT, code) ?? code;
export const reasonText = (code: string) => wordsOf(REASON_TEXT, code) ?? plainCode(code);
export const relinkCauseText = (code: string) => wordsOf(RELINK_CAUSE_TEXT, code) ?? plainCode(code);
export const verificationText = (code: string) => wordsOf(VERIFICATION_TEXT, code) ?? plainCode(code);

/** Words from a table for use inside a sentence or after a colon: "(revoked by a member)"; an abbreviation (API) keeps its capitals. */
export const inSentence = (words: string) => (/^[A-Z](?![A-Z])/.test(words) ? words[0].toLowerCase() + words.slice(1) : words);

/** Details whose value is a stored code, each worded by its own table. */
const CODE_DETAILS: Readonly<Record<string, (code: string) => string>> = {
  reason: reasonText,
  purge_reason: reasonText,
  revoked_reason: reasonText,
  cause: relinkCauseText,
  previous_status: statusText,
  verification_mode_raised_from: verificationText,
};

/** A detail's value in words: a code by its table, a list item by item, a recipient (or member) by label and problem. */
const valueText = (value: unknown, name = ''): string => {
  if (typeof value === 'string') {
    const words = Object.hasOwn(CODE_DETAILS, name) ? CODE_DETAILS[name] : null;
    return words ? inSentence(words(value)) : plainCode(value);
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map((item) => valueText(item)).join(', ');
  if (value && typeof value === 'object') {
    const { label, name: personName, problem } = value as { label?: unknown; name?: unknown; problem?: unknown };
    const who = typeof label === 'string' ? label : typeof personName === 'string' ? personName : null;
    if (who) return typeof problem === 'string' ? `${who} (${valueText(problem)})` : who;
    return JSON.stringify(value);
  }
  return String(value);
};

/** Nothing to say (an empty list, say) is left out rather than shown as a name with nothing after it. */
const isEmpty = (value: unknown) => value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

/** A trail entry's details in words, for the line under its type: `cause: the link was locked…; previous status: opened`. */
export const detailsText = (details: Record<string, unknown> | null | undefined) =>
  Object.entries(details ?? {})
    .filter(([, value]) => !isEmpty(value))
    .map(([name, value]) => `${plainCode(name)}: ${valueText(value, name)}`)
    .join('; ');
