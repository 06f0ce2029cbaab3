import type { Clock } from '../../clock.ts';
import type { Actor, HandoffRequest } from '../../model.ts';
import type { Directory, HandoffRepository } from '../../ports.ts';
import type { ExpiryScheduling } from '../../expiry-schedule.ts';
import type { PublicUrls } from '../../request-view.ts';
import { TICKET_CLOSED } from '../../ticket-lifecycle.ts';
import type { IntegrationRepository } from '../../integration.ts';
import type { TicketCheckQueue } from '../../ticket-check.ts';
import { completion, endRequest } from '../end-request.ts';
import { expireRequest, type ExpiryOutcome } from '../expire-request.ts';

export interface PurgeDeps extends ExpiryScheduling {
  requests: Pick<HandoffRepository, 'get' | 'update'>;
  directory: Pick<Directory, 'getOrganisation'>;
  clock: Clock;
  urls: PublicUrls;
  /** Where a ticket is linked through an integration connected to its helpdesk, the ticket is read again at the window's end (absent: never). */
  integrations?: Pick<IntegrationRepository, 'get'>;
  ticketChecks?: TicketCheckQueue;
}

/** Who destroys a credential when a ticket's grace period ends, as the audit trail shows it. */
export const PURGE_ACTOR: Actor = { type: 'system', label: 'ticket grace period' };

/**
 * - `purged`: the grace period had ended; the request is completed and its material deleted;
 * - `not_due`: a purge is scheduled for later (an early trigger: nothing done);
 * - `not_scheduled`: no purge is scheduled (a reopen cancelled it: nothing done);
 * - `ended`: no longer submitted (completed, expired: nothing done); `missing`: no such request;
 * - `verifying`: the ticket is linked through a connected helpdesk, which is read first: its answer
 *   completes the request (still closed) or cancels the purge (reopened); a failed read, nothing.
 */
export type PurgeOutcome = 'purged' | 'not_due' | 'not_scheduled' | 'ended' | 'missing' | 'verifying';

const outcomeOf = (request: HandoffRequest | null, now: Date): PurgeOutcome | null => {
  if (!request) return 'missing';
  if (request.status !== 'submitted') return 'ended';
  if (!request.purgeScheduledAt) return 'not_scheduled';
  if (new Date(request.purgeScheduledAt) > now) return 'not_due';
  return null;
};

class NothingToPurge extends Error {
  constructor(readonly outcome: PurgeOutcome) {
    super(outcome);
  }
}

/**
 * The purge worker's use case: completes a submitted request whose ticket-close grace period has
 * ended (purge_reason `ticket_closed`), deleting the envelope and attachments in the same
 * transaction, as a completion through the API would, rotation signal included. A trigger that
 * comes early, late or twice does nothing; a request changed meanwhile is decided afresh.
 */
export const purgeRequest = async (deps: PurgeDeps, requestId: string): Promise<PurgeOutcome> => {
  const first = await deps.requests.get(requestId);
  const early = outcomeOf(first, deps.clock.now());
  if (early) return early;
  if (await readsHelpdeskFirst(deps, first!)) return 'verifying';
  const org = await deps.directory.getOrganisation(first!.orgId);
  try {
    await endRequest(
      deps,
      {
        orgId: first!.orgId,
        actor: PURGE_ACTOR,
        rotationSignal: org?.policy.rotationSignal ?? false,
        load: async (id) => {
          const request = await deps.requests.get(id);
          const outcome = outcomeOf(request, deps.clock.now());
          if (outcome) throw new NothingToPurge(outcome);
          return request!;
        },
      },
      requestId,
      { ...completion(TICKET_CLOSED), details: (request) => ({ purge_reason: request.purgeReason, grace_period_ended: true }) },
    );
    return 'purged';
  } catch (error) {
    if (error instanceof NothingToPurge) return error.outcome;
    throw error;
  }
};

/** A request whose ticket its helpdesk can confirm: the read is asked for instead of the purge (verify-ticket.ts applies it). */
const readsHelpdeskFirst = async (deps: PurgeDeps, request: HandoffRequest) => {
  const { integrationId, externalId } = request.ticket ?? {};
  if (!integrationId || !externalId || !deps.integrations) return false;
  const integration = await deps.integrations.get(request.orgId, integrationId);
  if (!integration?.helpdesk) return false;
  // Without a queue the reconciliation's next read decides.
  await deps.ticketChecks?.enqueue({ orgId: request.orgId, integrationId, externalId, attempt: 0 }, 0);
  return true;
};

/** What the sweep does to a request the byDue index lists: a due purge first, else expiry. */
export const settleDueRequest = async (deps: PurgeDeps, requestId: string): Promise<'purged' | ExpiryOutcome> => {
  const purged = await purgeRequest(deps, requestId);
  return purged === 'purged' ? purged : expireRequest(deps, requestId);
};
