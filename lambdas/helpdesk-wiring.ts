import { SealedHelpdeskConnector } from '#adapters/helpdesks/helpdesk-connector.ts';
import type { HelpdeskConnector } from '#core/helpdesk.ts';
import type { HelpdeskWaits } from '#core/helpdesk-waits.ts';
import { DynamoHelpdeskWaits } from '#store/helpdesk-waits.ts';
import type { AppDeps } from './app-deps.ts';

/**
 * The helpdesk side of the deployed wiring, kept out of wiring.ts so that only the functions that
 * call a helpdesk bundle the adapters: every other function stays inside the bundle budget (the
 * creating functions reach a helpdesk through the ticket-check worker, ticket-reply-wiring.ts; the
 * ticket-check queue is ticket-check-wiring.ts).
 */

/**
 * Each helpdesk call's limit: a token and a post fit inside the reply invocation's 7 seconds
 * (lambda-ticket-replier.ts), and a read that takes longer is retried later anyway.
 */
export const HELPDESK_CALL_TIMEOUT_MS = 3_000;

/**
 * The helpdesk adapters, for the functions that call a helpdesk (ticket checks and replies, the
 * reconciliation, the page's check), and the waits their helpdesks asked for.
 */
export const withHelpdesks = <Deps extends AppDeps>(deps: Deps): Deps & { helpdesks: HelpdeskConnector; helpdeskWaits: HelpdeskWaits } => ({
  ...deps,
  helpdesks: deps.helpdesks ?? new SealedHelpdeskConnector(deps.sealer, { clock: deps.clock, allowLoopback: deps.webhookPolicy.allowLoopback, timeoutMs: HELPDESK_CALL_TIMEOUT_MS }),
  helpdeskWaits: new DynamoHelpdeskWaits(deps.db, deps.tableName),
});
