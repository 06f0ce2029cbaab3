import { SqsTicketCheckQueue } from '#adapters/sqs-ticket-checks.ts';
import type { TicketCheckQueue } from '#core/ticket-check.ts';
import type { AppDeps } from './app-deps.ts';
import { required } from './wiring.ts';

/**
 * The ticket-check queue TICKET_CHECK_QUEUE_URL, for the functions that ask for checks (the ticket
 * status routes, the purge worker and the sweep) and the check worker's own retries; built on first
 * use, as only those functions have the variable (and sqs:SendMessage on the queue). A module
 * apart from the helpdesk adapters (helpdesk-wiring.ts), so a function that calls a helpdesk but
 * queues no check (the reconciliation, the page's check) bundles no SQS client.
 */
export const withTicketChecks = <Deps extends AppDeps>(deps: Deps): Deps & { ticketChecks: TicketCheckQueue } => {
  if (deps.ticketChecks) return deps as Deps & { ticketChecks: TicketCheckQueue };
  let built: SqsTicketCheckQueue | undefined;
  const ticketChecks: TicketCheckQueue = {
    enqueue: (check, delaySeconds) => (built ??= new SqsTicketCheckQueue(required('TICKET_CHECK_QUEUE_URL'))).enqueue(check, delaySeconds),
  };
  return { ...deps, ticketChecks };
};

