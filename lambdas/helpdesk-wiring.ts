import { SealedHelpdeskConnector } from '#adapters/helpdesks/helpdesk-connector.ts';
import { SqsTicketCheckQueue } from '#adapters/sqs-ticket-checks.ts';
import type { HelpdeskConnector } from '#core/helpdesk.ts';
import type { TicketCheckQueue } from '#core/ticket-check.ts';
import type { AppDeps } from './app-deps.ts';
import { required } from './wiring.ts';

/**
 * The helpdesk side of the deployed wiring, kept out of wiring.ts so that only the functions that
 * call a helpdesk bundle the adapters, and only those that queue ticket checks the queue: every
 * other function stays inside the bundle budget (the creating functions reach a helpdesk through
 * the ticket-check worker, ticket-reply-wiring.ts).
 */

/**
 * Each helpdesk call's limit: a token and a post fit inside the reply invocation's 7 seconds
 * (lambda-ticket-replier.ts), and a read that takes longer is retried later anyway.
 */
export const HELPDESK_CALL_TIMEOUT_MS = 3_000;

/** The helpdesk adapters, for the functions that call a helpdesk (ticket checks and replies, the reconciliation, the page's check). */
export const withHelpdesks = <Deps extends AppDeps>(deps: Deps): Deps & { helpdesks: HelpdeskConnector } => ({
  ...deps,
  helpdesks: deps.helpdesks ?? new SealedHelpdeskConnector(deps.sealer, { clock: deps.clock, allowLoopback: deps.webhookPolicy.allowLoopback, timeoutMs: HELPDESK_CALL_TIMEOUT_MS }),
});

/**
 * The ticket-check queue TICKET_CHECK_QUEUE_URL, for the functions that ask for checks (the ticket
 * status routes, the purge worker and the sweep) and the check worker's own retries; built on first
 * use, as only those functions have the variable (and sqs:SendMessage on the queue).
 */
export const withTicketChecks = <Deps extends AppDeps>(deps: Deps): Deps & { ticketChecks: TicketCheckQueue } => {
  if (deps.ticketChecks) return deps as Deps & { ticketChecks: TicketCheckQueue };
  let built: SqsTicketCheckQueue | undefined;
  const ticketChecks: TicketCheckQueue = {
    enqueue: (check, delaySeconds) => (built ??= new SqsTicketCheckQueue(required('TICKET_CHECK_QUEUE_URL'))).enqueue(check, delaySeconds),
  };
  return { ...deps, ticketChecks };
};

