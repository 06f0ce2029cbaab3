import { WriteConflict } from '../../errors.ts';
import type { Organisation } from '../../model.ts';
import { isShareLive, type Share } from '../../share.ts';
import { shareAuditEntry } from '../shares/share-audit.ts';
import { endShare, type ShareWriteCondition } from '../shares/share-lifecycle.ts';
import type { ShareDeps } from '../shares/share-ports.ts';
import type { TicketStatusInput } from './apply-ticket-status.ts';
import { MAX_STATUS_RACES, statusRaceBackoff } from './status-races.ts';

/**
 * A status that leaves the share as it was is still recorded on it (`ticket.status_received`, as
 * on a request), so its trail and certificate show every status its ticket sent, trusted or not.
 * Written with the share's version, so it never lands on a share ended meanwhile.
 */
const recordShareStatus = async (deps: ShareDeps, share: Share, input: TicketStatusInput, trusted: boolean, channel: Record<string, unknown>, condition?: ShareWriteCondition) => {
  const details = { ...channel, ...(input.statusWord ? { status_word: input.statusWord } : {}), verified: input.verified, trusted, action: 'recorded' };
  let current: Share | null = share;
  for (let race = 1; current && isShareLive(current); race++) {
    try {
      await deps.shares.update(current, current, [shareAuditEntry(current, input.channel.actor, 'ticket.status_received', details)], false, condition?.conditions);
      return;
    } catch (error) {
      if (error instanceof WriteConflict) await condition?.onConflict(condition.conditions);
      if (!(error instanceof WriteConflict) || race >= MAX_STATUS_RACES) throw error;
      await statusRaceBackoff(race);
      current = await deps.shares.get(share.id);
    }
  }
};

/**
 * A ticket status applied to the live shares that quote the ticket (SPEC.md rule 2: quoted only,
 * so never for `integration_id` or a client-scoped caller: shares are linked to no integration and
 * belong to no client). A trusted close (closed, or resolved where the policy counts it) destroys
 * each at once with reason `ticket_closed`: a share has no reveal step to wait for, so the grace
 * period, which keeps a request's credential for its recipients, does not apply; any other status
 * is recorded on each, under `condition` when the status came through an integration's URL.
 * Answers the ids of the live shares matched, oldest first.
 */
export const applyTicketStatusToShares = async (deps: ShareDeps, input: TicketStatusInput, trusted: boolean, condition?: ShareWriteCondition): Promise<string[]> => {
  // The ticket index, when it covers the organisation, says whether any share quotes the ticket at all.
  if (input.onlyIntegration || input.clientId || input.links?.shared === false) return [];
  const live = (await deps.shares.findByTicket(input.org.id, input.ref)).filter(isShareLive);
  // The status as judged under the policy that last stood: a policy change met at one share
  // decides the shares after it too (their writes are conditioned on that policy's version).
  let judged = { input, trusted };
  for (const share of live) {
    for (let policies = 1; ; policies++) {
      try {
        await applyToShare(deps, share, judged.input, judged.trusted, condition);
        break;
      } catch (error) {
        // The policy changed before the share's change was written: decided again under the new one.
        if (!(error instanceof PolicyChanged)) throw error;
        // Contention, as a write that keeps losing its race is (503): the sender retries.
        if (policies >= MAX_STATUS_RACES) throw new WriteConflict('the policy kept changing while the status was applied', { cause: error });
        const org = error.org;
        judged = { input: { ...input, org }, trusted: input.verified || org.policy.ticket.trustUnverifiedWebhooks };
        condition = condition && { ...condition, conditions: { ...condition.conditions, policyVersion: org.policyVersion ?? 0 } };
      }
    }
  }
  return live.map((share) => share.id);
};

const applyToShare = (deps: ShareDeps, share: Share, input: TicketStatusInput, trusted: boolean, condition?: ShareWriteCondition) => {
  const closes = input.org.policy.ticket.closeStatuses.includes(input.status as 'resolved' | 'closed');
  const channel = { ticket_ref: input.ref, status: input.status, channel: input.channel.kind, channel_name: input.channel.name };
  return trusted && closes ? endShare(deps, share.id, 'ticket_closed', input.channel.actor, channel, condition) : recordShareStatus(deps, share, input, trusted, channel, condition);
};

/** A share's change refused because the organisation's policy is no longer the one it was judged under. */
export class PolicyChanged extends Error {
  override readonly name = 'PolicyChanged';
  constructor(readonly org: Organisation) {
    super('The policy changed while a status was applied.');
  }
}
