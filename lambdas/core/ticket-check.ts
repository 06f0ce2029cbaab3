/**
 * A ticket check: one read of a linked ticket through its integration's helpdesk, whose answer
 * is applied to the requests linked to it as a verified status. A closing hint (the integration's
 * webhook URL, POST /tickets/{ref}/status), the end of a grace period and the reconciliation
 * each ask for one; none of them destroys anything itself.
 */
export interface TicketCheck {
  orgId: string;
  integrationId: string;
  /** The ticket's id in the helpdesk (the requests' `ticket_external_id`). */
  externalId: string;
  /** Reads of this check that failed so far: the next waits longer. */
  attempt: number;
}

/**
 * Runs ticket checks soon, outside the call that asked (an SQS queue deployed, a timer locally):
 * the inbound answer never waits for the helpdesk. A later check of the same ticket may replace
 * one still waiting; a lost one is made good by the reconciliation.
 */
export interface TicketCheckQueue {
  enqueue(check: TicketCheck, delaySeconds: number): Promise<void>;
}

/**
 * Waits before the next read after `attempt` failed reads: 2 s, 10 s, 30 s, 2, 5 and 15 minutes,
 * never less than the helpdesk's Retry-After. After the last, the check stops and the
 * reconciliation's period takes over, so a helpdesk that stays down is not called in a loop.
 */
const BACKOFF_SECONDS = [2, 10, 30, 120, 300, 900];
export const MAX_CHECK_ATTEMPTS = BACKOFF_SECONDS.length;

export const retryDelaySeconds = (failedAttempts: number, retryAfterSeconds?: number): number | null => {
  if (failedAttempts > MAX_CHECK_ATTEMPTS) return null;
  const backoff = BACKOFF_SECONDS[Math.max(0, failedAttempts - 1)]!;
  return Math.max(backoff, retryAfterSeconds ?? 0);
};

/** The same ticket's checks share this key (a newer one replaces an older one still waiting). */
export const ticketCheckKey = (check: Pick<TicketCheck, 'orgId' | 'integrationId' | 'externalId'>) =>
  JSON.stringify([check.orgId, check.integrationId, check.externalId]);

export const ticketCheckOfKey = (key: string, attempt: number): TicketCheck => {
  const [orgId, integrationId, externalId] = JSON.parse(key) as [string, string, string];
  return { orgId, integrationId, externalId, attempt };
};
