/// <reference lib="dom" />
/**
 * Words for the states that several pages of the member application show: a request's status
 * badge (the list and the detail page), an identity key's state (My key and Members), and a
 * request trail's entries.
 * A fingerprint is written by fingerprintCode in web/shared/dom.ts.
 */
import { h } from '../shared/dom.ts';
import type { RequestTrailType } from '../../lambdas/core/request-trail-types.ts';
import type { IdentityKey } from './shapes.ts';

const STATUS_TEXT: Record<string, string> = {
  pending: 'Pending',
  opened: 'Opened',
  submitted: 'Submitted',
  completed: 'Completed',
  revoked: 'Revoked',
  expired: 'Expired',
};
export const statusBadge = (status: string) => h('span', { class: `badge badge-${status}` }, STATUS_TEXT[status] ?? status);

const KEY_STATES: Record<string, string> = {
  verified: 'Verified',
  replaced_pending_approval: 'Replaced; waiting for an owner or admin to approve it',
  refused: 'Refused by an owner or admin; a new key is needed',
  revoked: 'Revoked',
};
export const keyStateText = (key: IdentityKey | null) => (key ? (KEY_STATES[key.state] ?? key.state) : 'No key');

/**
 * A request trail's entries in words, one for every type the service writes about a request
 * (lambdas/core/request-trail-types.ts): the type checker refuses a type left out or one never written.
 */
export const TRAIL_TEXT: Readonly<Record<RequestTrailType, string>> = {
  'request.created': 'Created',
  'request.link_posted': 'Link posted in the ticket',
  'request.link_post_failed': 'Posting the link in the ticket failed',
  // Each trail line goes on "by <actor>": the words do not name who did it again.
  'request.opened': 'Link opened',
  'subject.email_code_sent': 'Code emailed to the subject',
  'subject.verified': 'Subject verified',
  'subject.verification_failed': 'Wrong code entered',
  'request.link_locked': 'Link locked after too many wrong codes',
  'request.submitted': 'Credential submitted',
  'request.revealed': 'Credential revealed',
  'request.reported': 'Reported as unexpected',
  'ticket.status_received': 'Ticket status received',
  'request.purge_scheduled': 'Purge scheduled: the ticket closed',
  'request.purge_cancelled': 'Scheduled purge cancelled: the ticket reopened',
  'request.completed': 'Completed; credential destroyed',
  'credential.rotation_recommended': 'Rotation of the credential recommended',
  'request.revoked': 'Revoked',
  'request.expired': 'Expired; material destroyed',
  'request.relinked': 'Given a new link; the old link and code stopped working',
  'request.needs_relink': 'Link unusable: a recipient\u2019s key changed',
  'request.unrecoverable': 'No recipient can open the credential any more',
  'request.recoverable': 'A recipient can open the credential again',
};

/** An entry's type in words; a type this page does not know yet is shown as it is stored. */
export const trailText = (type: string) => TRAIL_TEXT[type as RequestTrailType] ?? type;

/**
 * Who acted, as the trails show it: "Olivia Owner (member)". The name is isolated (<bdi>): a name
 * in a right-to-left script, or one carrying a stray direction override, stays in its own box and
 * cannot reorder the words around it. No actor is the service itself.
 */
export const actorOf = (actor: { type: string; label?: string | null } | null | undefined) =>
  !actor ? 'system' : actor.label ? h('span', { class: 'actor' }, h('bdi', {}, actor.label), ` (${actor.type})`) : actor.type;
