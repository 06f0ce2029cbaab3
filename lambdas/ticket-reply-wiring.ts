import { LambdaTicketReplier } from '#adapters/lambda-ticket-replier.ts';
import type { TicketReplier } from '#core/use-cases/ticket-reply.ts';
import type { AppDeps } from './app-deps.ts';
import { required } from './wiring.ts';

/**
 * Posting links in tickets, for the functions that create requests: the ticket-check worker
 * TICKET_REPLY_FUNCTION invoked directly (only it opens helpdesk credentials); built on first use.
 * A module of its own, so the creating functions bundle neither the helpdesk adapters nor the
 * ticket-check queue.
 */
export const withTicketReplies = <Deps extends AppDeps>(deps: Deps): Deps & { ticketReplies: TicketReplier } => {
  if (deps.ticketReplies) return deps as Deps & { ticketReplies: TicketReplier };
  let built: LambdaTicketReplier | undefined;
  return { ...deps, ticketReplies: { postLink: (input) => (built ??= new LambdaTicketReplier(required('TICKET_REPLY_FUNCTION'))).postLink(input) } };
};
