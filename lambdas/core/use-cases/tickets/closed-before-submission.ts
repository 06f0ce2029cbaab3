import type { AuditType } from '../../audit-types.ts';
import { syncExpirySchedule, type ExpiryScheduling } from '../../expiry-schedule.ts';
import type { Actor, HandoffRequest, Organisation } from '../../model.ts';
import type { HandoffRepository } from '../../ports.ts';
import { applyChange, readAgain, type RequestChange } from '../apply-change.ts';
import { requestAuditEntry } from '../../request-audit.ts';
import { toRequestView, type PublicUrls } from '../../request-view.ts';
import { countsAsClosed, decideTicketChange, TICKET_CLOSED } from '../../ticket-lifecycle.ts';
import type { Clock } from '../../clock.ts';

export const CLOSED_TICKET_ACTOR: Actor = { type: 'system', label: 'ticket closed before submission' };

export interface ClosedTicketDeps extends ExpiryScheduling {
  requests: Pick<HandoffRepository, 'get' | 'update' | 'submit'>;
  clock: Clock;
  urls: PublicUrls;
}

/**
 * A credential submitted to a request whose ticket the service already holds as closed, by a
 * status it trusted (verified with the helpdesk, or unverified on a ticket only quoted by reference
 * while the organisation trusts unverified statuses), is destroyed as a close arriving now would
 * destroy it: at once, or at the end of the grace period (the sweep carries that purge out, and a
 * reopen inside the window cancels it). Without this, a policy that keeps unsubmitted links alive
 * on a close let a later submission outlive the ticket, as no second close would come.
 *
 * An unverified close on a ticket linked through an integration is left to the helpdesk: the
 * reconciliation reads linked tickets and closes on what the helpdesk says. Answers the request as
 * it now stands.
 */
export const closeIfTicketClosed = async (deps: ClosedTicketDeps, org: Organisation, submitted: HandoffRequest): Promise<HandoffRequest> => {
  const closed = await applyChange(
    deps.requests,
    readAgain(deps.requests, submitted),
    (request) => closedTicketChange(deps, org, request),
    (current, change) => ({ request: change?.after ?? current, completedHere: change?.after.status === 'completed' }),
  );
  if (closed.completedHere) await syncExpirySchedule(deps, closed.request);
  return closed.request;
};

/** What a submitted request's trusted closed ticket does to it now (purge scheduled, or completed), or null. */
export const closedTicketChange = (deps: Pick<ClosedTicketDeps, 'clock' | 'urls'>, org: Organisation, request: HandoffRequest, now = deps.clock.now()): RequestChange | null => {
  const policy = org.policy.ticket;
  const ticket = request.ticket;
  if (request.status !== 'submitted' || !ticket?.status || !countsAsClosed(ticket.status, policy)) return null;
  const trusted = ticket.statusVerified === true || (policy.trustUnverifiedWebhooks && ticket.integrationId === null);
  if (!trusted) return null;
  const decision = decideTicketChange(request, { status: ticket.status, verified: ticket.statusVerified === true, trusted }, policy, now);
  if (!decision || decision.action === 'recorded') return null;
  // What the ticket said, and when, stays as it was received.
  const after = { ...decision.after, ticket };
  const view = toRequestView(after, deps.urls);
  const details = { ticket_ref: ticket.ref ?? ticket.externalId, ticket_status: ticket.status, ticket_status_at: ticket.statusAt };
  const entry = (type: AuditType, more: Record<string, unknown>) => requestAuditEntry(org.id, CLOSED_TICKET_ACTOR, view, type, { ...more, ...details });
  if (decision.action !== 'completed') {
    return { after, audit: entry('request.purge_scheduled', { purge_scheduled_at: after.purgeScheduledAt, grace_period_minutes: policy.gracePeriodMinutes }) };
  }
  return {
    after,
    audit: entry('request.completed', { purge_reason: TICKET_CLOSED }),
    purgeMaterial: decision.purgeMaterial,
    followUps: org.policy.rotationSignal ? [entry('credential.rotation_recommended', { reason: 'credential_handed_over', purge_reason: TICKET_CLOSED })] : [],
  };
};
