import { addMinutes } from './clock.ts';
import type { HandoffRequest, Policy, TicketStatus } from './model.ts';
import { complete, revoke } from './request-state.ts';

/**
 * What a ticket status does to one request (SPEC.md, States and transitions, the ticket rows):
 * - `completed`: a trusted close of a submitted request with no grace period; the credential is destroyed;
 * - `purge_scheduled`: the same with a grace period; destruction at `purgeScheduledAt`;
 * - `purge_cancelled`: `open` or `pending` inside the grace window; the scheduled destruction is off;
 * - `revoked`: a trusted close of a pending or opened request, when the policy revokes unsubmitted ones;
 * - `recorded`: nothing else; the request keeps the ticket's latest status.
 */
export type TicketAction = 'completed' | 'revoked' | 'purge_scheduled' | 'purge_cancelled' | 'recorded';

/** The purge_reason and revoked_reason of changes a ticket made. */
export const TICKET_CLOSED = 'ticket_closed';

export interface TicketStatusChange {
  status: TicketStatus;
  /** Whether the status was verified against the ticket system (never, on the generic paths). */
  verified: boolean;
  /** Verified, or the organisation trusts unverified statuses: only then may it destroy anything. */
  trusted: boolean;
  /** When the helpdesk was read, for a verified status. */
  readAt?: string;
}

export interface TicketDecision {
  after: HandoffRequest;
  action: TicketAction;
  /** Whether the stored envelope and attachments are deleted in the same transaction. */
  purgeMaterial: boolean;
}

const ENDED = new Set(['completed', 'revoked', 'expired']);

/** Whether the policy counts this status as the ticket being closed. */
export const countsAsClosed = (status: TicketStatus, policy: Policy['ticket']) =>
  (policy.closeStatuses as readonly string[]).includes(status);

/**
 * Decides what `change` does to `request` at `now`; null for a request that has ended (completed,
 * revoked and expired requests are left alone). Every other request takes the status.
 */
export const decideTicketChange = (
  request: HandoffRequest,
  change: TicketStatusChange,
  policy: Policy['ticket'],
  now: Date,
): TicketDecision | null => {
  if (ENDED.has(request.status)) return null;
  const at = now.toISOString();
  const withStatus: HandoffRequest = {
    ...request,
    ticket: {
      ref: request.ticket?.ref ?? null,
      url: request.ticket?.url ?? null,
      externalId: request.ticket?.externalId ?? null,
      integrationId: request.ticket?.integrationId ?? null,
      status: change.status,
      statusVerified: change.verified,
      statusAt: at,
      ...(change.readAt ? { statusReadAt: change.readAt } : {}),
    },
    updatedAt: at,
  };
  const recorded: TicketDecision = { after: withStatus, action: 'recorded', purgeMaterial: false };
  const closing = change.trusted && countsAsClosed(change.status, policy);

  if (request.status === 'submitted') {
    if (closing) {
      if (policy.gracePeriodMinutes <= 0) {
        return { after: complete(withStatus, at, TICKET_CLOSED), action: 'completed', purgeMaterial: true };
      }
      if (request.purgeScheduledAt) {
        // The window has ended: the purge is due, and a close now (the helpdesk read at the
        // window's end, or a late trigger) carries it out.
        if (new Date(request.purgeScheduledAt) <= now) return { after: complete(withStatus, at, TICKET_CLOSED), action: 'completed', purgeMaterial: true };
        // A second close inside the window keeps the first deadline: a repeated post must not push destruction out.
        return recorded;
      }
      const purgeAt = addMinutes(now, policy.gracePeriodMinutes).toISOString();
      return { after: { ...withStatus, purgeScheduledAt: purgeAt }, action: 'purge_scheduled', purgeMaterial: false };
    }
    // Reopening inside the window cancels: keeping a credential longer is the safe direction, so no
    // trust is needed. Once the window has ended the purge is due (its trigger may just be late): it
    // stands, unless the helpdesk itself says the ticket is open (the read made at the window's end).
    const insideWindow = request.purgeScheduledAt !== null && new Date(request.purgeScheduledAt) > now;
    const reopened = change.status === 'open' || change.status === 'pending';
    if (reopened && request.purgeScheduledAt !== null && (insideWindow || change.verified)) {
      return { after: { ...withStatus, purgeScheduledAt: null }, action: 'purge_cancelled', purgeMaterial: false };
    }
    return recorded;
  }
  if (closing && policy.revokeUnsubmittedOnClose) {
    return { after: revoke(withStatus, at, TICKET_CLOSED), action: 'revoked', purgeMaterial: false };
  }
  return recorded;
};
