import { HelpdeskCallFailed, type HelpdeskConnector, type HelpdeskFailureReason } from '../../helpdesk.ts';
import { integrationActor, IntegrationChanged, type IntegrationRepository } from '../../integration.ts';
import type { HandoffRequest } from '../../model.ts';
import type { Directory } from '../../ports.ts';
import { retryDelaySeconds, type TicketCheck, type TicketCheckQueue } from '../../ticket-check.ts';
import { applyTicketStatus, type TicketStatusDeps, type TicketStatusOutcome } from './apply-ticket-status.ts';
import { holdAsAsked, type HelpdeskWaits } from '../../helpdesk-waits.ts';

export interface VerifyTicketDeps extends TicketStatusDeps {
  integrations: Pick<IntegrationRepository, 'get' | 'recordActivity'>;
  helpdeskWaits: HelpdeskWaits;
  directory: Pick<Directory, 'getOrganisation'>;
  helpdesks: HelpdeskConnector;
  /** Where a failed read queues its next attempt; absent, it is not retried (the reconciliation reads again). */
  ticketChecks?: TicketCheckQueue;
}

/**
 * - `applied`: the helpdesk answered; its status was applied to the linked requests (verified);
 * - `nothing_live`: no live request is linked to the ticket any more, so the helpdesk was not called;
 * - `not_connected`: the integration is gone or no longer connected to its helpdesk;
 * - `failed`: the read failed (the reason is in the integration's activity view), or was not made
 *   because the helpdesk asked to be left alone until later (`held`); nothing changed.
 */
export type VerifyOutcome =
  | { kind: 'applied'; outcome: TicketStatusOutcome }
  | { kind: 'nothing_live' }
  | { kind: 'not_connected' }
  | { kind: 'failed'; reason: HelpdeskFailureReason; retryAfterSeconds?: number; held?: true };

const ENDED = new Set(['completed', 'revoked', 'expired']);
const linkedLive = (request: HandoffRequest, check: TicketCheck) =>
  !ENDED.has(request.status) && request.ticket?.integrationId === check.integrationId && request.ticket.externalId === check.externalId;

/**
 * One read of a linked ticket through its integration's helpdesk, applied as a verified status
 * to the requests linked to it (SPEC.md, POST /tickets/{ref}/status rule 1): only a close the
 * helpdesk confirms destroys (per policy, resolved or closed), and an open answer at the end of a
 * grace period cancels the purge. A failed read destroys nothing and is listed in the
 * integration's activity view with its reason.
 */
export const verifyTicket = async (deps: VerifyTicketDeps, check: TicketCheck): Promise<VerifyOutcome> => {
  for (let changes = 0; ; changes++) {
    try {
      return await verifyOnce(deps, check);
    } catch (error) {
      // The connection changed while the ticket was read (disconnected, or another helpdesk whose
      // ticket of that id is another ticket): that answer is dropped, and the ticket read again
      // through the connection that stands.
      if (!(error instanceof IntegrationChanged) || changes >= MAX_CONNECTION_CHANGES) throw error;
    }
  }
};

/** How many times one check reads again because the integration changed while its answer was applied. */
const MAX_CONNECTION_CHANGES = 3;

const verifyOnce = async (deps: VerifyTicketDeps, check: TicketCheck): Promise<VerifyOutcome> => {
  const [integration, org] = await Promise.all([deps.integrations.get(check.orgId, check.integrationId), deps.directory.getOrganisation(check.orgId)]);
  if (!integration?.helpdesk || !org) return { kind: 'not_connected' };
  const linked = (await deps.requests.findByTicket(check.orgId, check.externalId)).filter((request) => linkedLive(request, check));
  if (linked.length === 0) return { kind: 'nothing_live' };
  // The helpdesk asked (its Retry-After) to be left alone a while: no read of any of the
  // integration's tickets before then, whichever check or run would make it.
  const now = deps.clock.now();
  const waitUntil = await deps.helpdeskWaits.until(integration.id, now);
  if (waitUntil) return { kind: 'failed', reason: 'rate_limited', retryAfterSeconds: Math.ceil((Date.parse(waitUntil) - now.getTime()) / 1000), held: true };
  let ticket;
  try {
    const adapter = await deps.helpdesks.adapterFor(integration);
    if (!adapter) return { kind: 'not_connected' };
    ticket = await adapter.readTicket(check.externalId);
  } catch (error) {
    if (!(error instanceof HelpdeskCallFailed)) throw error;
    await holdAsAsked(deps.helpdeskWaits, integration.id, error, deps.clock.now());
    await deps.integrations.recordActivity(integration.id, {
      at: deps.clock.now().toISOString(),
      purpose: 'helpdesk',
      reason: `Reading the ticket failed, so nothing was destroyed: ${error.message}.`,
      ticketId: check.externalId,
      statusWord: null,
    });
    return { kind: 'failed', reason: error.reason, ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }) };
  }
  const outcome = await applyTicketStatus(deps, {
    org,
    ref: check.externalId,
    status: ticket.state,
    statusWord: ticket.vendorStatus,
    verified: true,
    verification: { helpdesk: integration.helpdesk.adapter, readAt: ticket.readAt, vendorStatus: ticket.vendorStatus },
    channel: { kind: 'helpdesk', name: integration.name, actor: integrationActor(integration), integrationId: integration.id, integrationVersion: integration.version },
    onlyIntegration: integration.id,
    clientId: integration.clientId,
  });
  return { kind: 'applied', outcome };
};

/**
 * A queued check: the read, and after a failed one the next attempt, queued after the backoff or
 * the helpdesk's Retry-After, whichever is longer. After the last attempt the reconciliation's
 * period takes over. A check held by a wait another call met made no read: it is queued again,
 * as the same attempt, for when the wait ends. Answers what the read did.
 */
export const runTicketCheck = async (deps: VerifyTicketDeps, check: TicketCheck): Promise<VerifyOutcome> => {
  const result = await verifyTicket(deps, check);
  if (result.kind === 'failed' && result.held) {
    await deps.ticketChecks?.enqueue(check, Math.max(1, result.retryAfterSeconds ?? 0));
  } else if (result.kind === 'failed') {
    const attempt = check.attempt + 1;
    const delay = retryDelaySeconds(attempt, result.retryAfterSeconds);
    if (delay !== null) await deps.ticketChecks?.enqueue({ ...check, attempt }, delay);
  }
  return result;
};
