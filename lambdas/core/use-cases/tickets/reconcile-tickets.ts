import type { RequestStatus } from '../../model.ts';
import { verifyTicket, type VerifyTicketDeps } from './verify-ticket.ts';

/** What only the reconciliation reads (store/helpdesk-links.ts). */
export interface HelpdeskLinks {
  /** Every integration connected to its helpdesk, across organisations. */
  connectedIntegrations(): Promise<Array<{ orgId: string; integrationId: string }>>;
  /** The external ids of the tickets that requests in `statuses` are linked to through one integration. */
  linkedTickets(orgId: string, integrationId: string, statuses: readonly RequestStatus[], limit?: number): Promise<string[]>;
}

export interface ReconcileDeps extends VerifyTicketDeps {
  helpdeskLinks: HelpdeskLinks;
}

/**
 * The most tickets one run reads per integration: with a run a minute locally and every two
 * minutes deployed, at most 30 (15) reads a minute per helpdesk, far below each vendor's limit
 * (Zendesk's lowest plan allows 200 requests a minute, HaloPSA 700 per five minutes, Jira's
 * cost budget more), so the service never uses up the helpdesk's allowance its other users need.
 */
export const RECONCILE_READS_PER_RUN = 30;

/** A failure that concerns the helpdesk rather than one ticket: the integration's run stops there. */
const STOPS_THE_RUN = new Set(['unauthorized', 'rate_limited', 'unavailable', 'timeout']);

/** Fisher-Yates: a fair order, so a budget smaller than the tickets still reaches each of them in turn. */
const shuffled = <T>(items: T[]): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};

export interface ReconcileSummary {
  integrations: number;
  read: number;
  failed: number;
  /** Requests a read completed, revoked or rescheduled. */
  changed: number;
}

/**
 * The reconciliation: reads the linked tickets of live requests through their integrations'
 * helpdesks, so a close destroys the credential even when the helpdesk never sends a webhook.
 * Submitted requests always (a close destroys); pending and opened ones where the policy revokes
 * unsubmitted requests on close. Each integration gets RECONCILE_READS_PER_RUN reads, of its
 * tickets in a random order, so that over a few runs every ticket is read; a refusal that concerns the whole helpdesk (its
 * credentials, its rate limit, an outage) ends that integration's run, so a helpdesk in trouble
 * is not called again until the next period.
 */
export const reconcileTickets = async (deps: ReconcileDeps, readsPerIntegration = RECONCILE_READS_PER_RUN): Promise<ReconcileSummary> => {
  const summary: ReconcileSummary = { integrations: 0, read: 0, failed: 0, changed: 0 };
  for (const { orgId, integrationId } of await deps.helpdeskLinks.connectedIntegrations()) {
    try {
      await reconcileIntegration(deps, orgId, integrationId, readsPerIntegration, summary);
    } catch (error) {
      // One integration's trouble (its sealed credentials refused, a table error) must not stop the
      // others' reconciliation: it is listed in its activity view and the run goes on.
      summary.failed += 1;
      await deps.integrations
        .recordActivity(integrationId, {
          at: deps.clock.now().toISOString(),
          purpose: 'helpdesk',
          reason: `The reconciliation could not read this integration's tickets (${(error as Error)?.name ?? 'error'}); nothing was destroyed.`,
          ticketId: null,
          statusWord: null,
        })
        .catch(() => undefined);
    }
  }
  return summary;
};

const reconcileIntegration = async (deps: ReconcileDeps, orgId: string, integrationId: string, readsPerIntegration: number, summary: ReconcileSummary) => {
  const org = await deps.directory.getOrganisation(orgId);
  if (!org) return;
  summary.integrations += 1;
  const statuses: RequestStatus[] = org.policy.ticket.revokeUnsubmittedOnClose ? ['submitted', 'pending', 'opened'] : ['submitted'];
  const tickets = shuffled(await deps.helpdeskLinks.linkedTickets(orgId, integrationId, statuses)).slice(0, readsPerIntegration);
  for (const externalId of tickets) {
    const result = await verifyTicket(deps, { orgId, integrationId, externalId, attempt: 0 });
    if (result.kind === 'not_connected') return;
    if (result.kind === 'nothing_live') continue;
    summary.read += 1;
    if (result.kind === 'applied') {
      summary.changed += result.outcome.changed.length;
      continue;
    }
    summary.failed += 1;
    if (STOPS_THE_RUN.has(result.reason)) return;
  }
};
