/// <reference lib="dom" />
/**
 * Words for the states that several pages of the member application show: a request's status
 * badge (the list and the detail page), an identity key's state (My key and Members), and the
 * audit entries of a request's trail and of the audit log.
 * A fingerprint is written by fingerprintCode in web/shared/dom.ts.
 */
import { h } from '../shared/dom.ts';
import type { AuditType, ORGANISATION_AUDIT_TYPES, SHARE_AUDIT_TYPES } from '../../lambdas/core/audit-types.ts';
import type { RequestTrailType } from '../../lambdas/core/request-trail-types.ts';
import { statusText } from './request-words.ts';
import type { IdentityKey } from './shapes.ts';

/** Words for a stored code, the code itself kept in the title for whoever matches it against the API or an export. */
export const worded = (words: string, code: string) => h('span', { title: code }, words);

export const statusBadge = (status: string) => h('span', { class: `badge badge-${status}` }, statusText(status));

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
  'request.email_codes_used_up': 'Link unusable: every emailed code was sent and none is left',
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
  'request.recipient_key_changed': 'A recipient\u2019s key changed; the link was already unusable',
  'request.unrecoverable': 'No recipient can open the credential any more',
  'request.recoverable': 'A recipient can open the credential again',
};

/**
 * The entries about a share or about the organisation itself, which only the audit log shows. The
 * log names what an entry is about in its own column, so these say which kind of thing changed.
 */
const OTHER_AUDIT_TEXT: Readonly<Record<(typeof SHARE_AUDIT_TYPES)[number] | (typeof ORGANISATION_AUDIT_TYPES)[number], string>> = {
  'share.created': 'Share created',
  'share.revealed': 'Share opened',
  'share.expired': 'Share expired; material destroyed',
  'share.purged': 'Share destroyed',
  'organisation.created': 'Organisation created',
  'organisation.plan_changed': 'Plan changed',
  'organisation.policy_changed': 'Policy changed',
  'organisation.rate_limits_changed': 'Rate limits changed',
  'org_recovery.used': 'Organisation recovery used',
  'member.added': 'Member added',
  'member.role_changed': 'Member\u2019s role changed',
  'member.disabled': 'Member disabled',
  'member.enabled': 'Member enabled',
  'member.key_registered': 'Member\u2019s key registered',
  'member.key_replaced': 'Member\u2019s key replaced',
  'member.key_approved': 'Member\u2019s replaced key approved',
  'member.key_refused': 'Member\u2019s replaced key refused',
  'client.created': 'Client added',
  'client.renamed': 'Client renamed',
  'team.created': 'Team created',
  'team.renamed': 'Team renamed',
  'team.members_changed': 'Team\u2019s members changed',
  'template.created': 'Template created',
  'preset.saved': 'Preset saved',
  'preset.default_set': 'Default preset set',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'api_key.address_refused': 'API key refused: called from an address it does not allow',
  'webhook.created': 'Webhook added',
  'webhook.deleted': 'Webhook deleted',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'webhook.redelivered': 'Webhook delivery sent again',
  'webhook.delivery_failed': 'Webhook delivery failed',
  ping: 'Webhook test sent',
  'integration.connected': 'Integration added',
  'integration.updated': 'Integration changed',
  'integration.enabled': 'Integration switched on',
  'integration.disabled': 'Integration switched off',
  'integration.secret_rotated': 'Integration secret rotated',
  'integration.helpdesk_connected': 'Helpdesk connected',
  'integration.helpdesk_disconnected': 'Helpdesk disconnected',
  'ticket.trigger_failed': 'A ticket asked for a request; none was created',
};

/**
 * Every audit type in words (lambdas/core/audit-types.ts), for the trail and the audit log alike:
 * the type checker refuses a type left out or one never written.
 */
export const AUDIT_TEXT: Readonly<Record<AuditType, string>> = { ...TRAIL_TEXT, ...OTHER_AUDIT_TEXT };

/** An entry's type in words; a type this page does not know yet (one retired since) is shown as it is stored. */
export const auditText = (type: string) => (Object.hasOwn(AUDIT_TEXT, type) ? AUDIT_TEXT[type as AuditType] : type);

/**
 * Who acted, as the trails show it: "Olivia Owner (member)". The name is isolated (<bdi>): a name
 * in a right-to-left script, or one carrying a stray direction override, stays in its own box and
 * cannot reorder the words around it. No actor is the service itself.
 */
export const actorOf = (actor: { type: string; label?: string | null } | null | undefined) =>
  !actor ? 'system' : actor.label ? h('span', { class: 'actor' }, h('bdi', {}, actor.label), ` (${actor.type})`) : actor.type;
