import { retryOnConflict } from '../../errors.ts';
import { syncExpirySchedule, type ExpiryScheduling } from '../../expiry-schedule.ts';
import type { Actor, HandoffRequest, Organisation } from '../../model.ts';
import type { RequestRepository } from '../../ports.ts';
import { requestAuditEntry } from '../../request-audit.ts';
import { toRequestView, type PublicUrls } from '../../request-view.ts';
import { countsAsClosed, decideTicketChange, TICKET_CLOSED } from '../../ticket-lifecycle.ts';
import type { Clock } from '../../clock.ts';

export const CLOSED_TICKET_ACTOR: Actor = { type: 'system', label: 'ticket closed before submission' };

export interface ClosedTicketDeps extends ExpiryScheduling {
  requests: Pick<RequestRepository, 'get' | 'update'>;
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
export const closeIfTicketClosed = (deps: ClosedTicketDeps, org: Organisation, submitted: HandoffRequest): Promise<HandoffRequest> =>
  retryOnConflict(async () => {
    const request = (await deps.requests.get(submitted.id)) ?? submitted;
    const ticket = request.ticket;
    const policy = org.policy.ticket;
    if (request.status !== 'submitted' || !ticket?.status || !countsAsClosed(ticket.status, policy)) return request;
    const trusted = ticket.statusVerified === true || (policy.trustUnverifiedWebhooks && ticket.integrationId === null);
    if (!trusted) return request;
    const decision = decideTicketChange(request, { status: ticket.status, verified: ticket.statusVerified === true, trusted }, policy, deps.clock.now());
    if (!decision || decision.action === 'recorded') return request;
    // What the ticket said, and when, stays as it was received.
    const after = { ...decision.after, ticket };
    const view = toRequestView(after, deps.urls);
    const details = { ticket_ref: ticket.ref ?? ticket.externalId, ticket_status: ticket.status, ticket_status_at: ticket.statusAt };
    const entry =
      decision.action === 'completed'
        ? requestAuditEntry(org.id, CLOSED_TICKET_ACTOR, view, 'request.completed', { purge_reason: TICKET_CLOSED, ...details })
        : requestAuditEntry(org.id, CLOSED_TICKET_ACTOR, view, 'request.purge_scheduled', { purge_scheduled_at: after.purgeScheduledAt, grace_period_minutes: policy.gracePeriodMinutes, ...details });
    const followUps =
      decision.action === 'completed' && org.policy.rotationSignal
        ? [requestAuditEntry(org.id, CLOSED_TICKET_ACTOR, view, 'credential.rotation_recommended', { reason: 'credential_handed_over', purge_reason: TICKET_CLOSED, ...details })]
        : [];
    await deps.requests.update(request, after, entry, decision.purgeMaterial, followUps);
    if (decision.action === 'completed') await syncExpirySchedule(deps, after);
    return after;
  });
