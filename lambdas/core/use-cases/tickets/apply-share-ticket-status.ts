import { isShareLive } from '../../share.ts';
import { endShare } from '../shares/share-lifecycle.ts';
import type { ShareDeps } from '../shares/share-ports.ts';
import type { TicketStatusInput } from './apply-ticket-status.ts';

/**
 * A ticket status applied to the live shares that quote the ticket (SPEC.md rule 2: quoted only,
 * so never for `integration_id` or a client-scoped caller: shares are linked to no integration and
 * belong to no client). A trusted close (closed, or resolved where the policy counts it) destroys
 * each at once with reason `ticket_closed`: a share has no reveal step to wait for, so the grace
 * period, which keeps a request's credential for its recipients, does not apply. Answers the ids
 * of the live shares matched, oldest first.
 */
export const applyTicketStatusToShares = async (deps: ShareDeps, input: TicketStatusInput, trusted: boolean): Promise<string[]> => {
  // The ticket index, when it covers the organisation, says whether any share quotes the ticket at all.
  if (input.onlyIntegration || input.clientId || input.links?.shared === false) return [];
  const live = (await deps.shares.findByTicket(input.org.id, input.ref)).filter(isShareLive);
  const closes = input.org.policy.ticket.closeStatuses.includes(input.status as 'resolved' | 'closed');
  if (trusted && closes) {
    const channel = { ticket_ref: input.ref, status: input.status, channel: input.channel.kind, channel_name: input.channel.name };
    for (const share of live) await endShare(deps, share.id, 'ticket_closed', input.channel.actor, channel);
  }
  return live.map((share) => share.id);
};
