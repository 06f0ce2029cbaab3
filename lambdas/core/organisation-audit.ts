import type { AuditType } from './audit-types.ts';
import type { Actor } from './model.ts';
import type { AuditEntryInput } from './ports.ts';

/**
 * An audit entry of a change to the organisation's own set-up (members, settings, keys, webhooks,
 * integrations): about no request, about a client only where the thing changed belongs to one,
 * and naming its actor in the data as every entry does. `data` holds `details` and anything else
 * the entry carries (a member's reference, say).
 */
export const organisationAudit = (orgId: string, actor: Actor, type: AuditType, data: Record<string, unknown>, clientId: string | null = null): AuditEntryInput => ({
  orgId,
  type,
  actor,
  clientId,
  requestId: null,
  data: { actor: { type: actor.type, label: actor.label }, details: {}, ...data },
});
