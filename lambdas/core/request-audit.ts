import type { Actor, HandoffRequest } from './model.ts';
import type { AuditType } from './audit-types.ts';
import type { AuditEntryInput } from './ports.ts';
import type { RequestView } from './request-view.ts';

/**
 * An audit entry about a request, as every writer records it: the request as it is after the
 * change, who did it (the actor's type and label, never its id), further event data (for example
 * the acting `member`) and the details. Never a secret.
 */
export const requestAuditEntry = (
  orgId: string,
  actor: Actor,
  view: RequestView,
  type: AuditType,
  details: Record<string, unknown>,
  data: Record<string, unknown> = {},
): AuditEntryInput => ({
  orgId,
  type,
  actor,
  clientId: view.client.id,
  requestId: view.id,
  data: { request: view, ...data, actor: { type: actor.type, label: actor.label }, details },
});

/**
 * What a request's custody certificate states about its sealing, recorded in the entry that gives
 * the request a link (its creation, and each new link): the recipients' key fingerprints and the
 * commitment. Events never carry it (events.ts copies only SPEC.md's members).
 */
export const sealingRecord = (request: Pick<HandoffRequest, 'recipients' | 'commit'>, computedBy: 'server' | 'browser') => ({
  recipients: request.recipients.map((r) => ({ membership_id: r.membershipId, label: r.label, fingerprint: r.fingerprint })),
  commitment: { value: request.commit, computed_by: computedBy },
});
