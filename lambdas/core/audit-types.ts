import { REQUEST_TRAIL_TYPES } from './request-trail-types.ts';

/** The custody entries of a share (use-cases/shares/share-audit.ts); a share's ticket statuses are trail types. */
export const SHARE_AUDIT_TYPES = ['share.created', 'share.revealed', 'share.expired', 'share.purged'] as const;

/**
 * Every other audit type: changes to the organisation's set-up (members and their keys, clients,
 * teams, policy, presets, API keys, webhooks, integrations), refusals and failures recorded for
 * the owners to see, and the webhook test action's `ping`.
 */
export const ORGANISATION_AUDIT_TYPES = [
  'organisation.created',
  'organisation.plan_changed',
  'organisation.policy_changed',
  'organisation.rate_limits_changed',
  'org_recovery.used',
  'member.added',
  'member.role_changed',
  'member.disabled',
  'member.enabled',
  'member.key_registered',
  'member.key_replaced',
  'member.key_approved',
  'member.key_refused',
  'client.created',
  'client.renamed',
  'team.created',
  'team.renamed',
  'team.members_changed',
  'template.created',
  'preset.saved',
  'preset.default_set',
  'api_key.created',
  'api_key.revoked',
  'api_key.address_refused',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.redelivered',
  'webhook.delivery_failed',
  'ping',
  'integration.connected',
  'integration.updated',
  'integration.enabled',
  'integration.disabled',
  'integration.secret_rotated',
  'integration.helpdesk_connected',
  'integration.helpdesk_disconnected',
  'ticket.trigger_failed',
] as const;

/**
 * Every audit type the service writes. An entry's type is one of these (ports.ts AuditEntryInput),
 * so the type checker refuses a new kind of entry until it is listed here, and the member
 * application's audit log labels each one (web/app/labels.ts).
 */
export const AUDIT_TYPES = [...REQUEST_TRAIL_TYPES, ...SHARE_AUDIT_TYPES, ...ORGANISATION_AUDIT_TYPES] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];
