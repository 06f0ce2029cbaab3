import { purgeRequest, type PurgeDeps } from '#core/use-cases/tickets/purge-request.ts';
import type { AppDeps } from '../app-deps.ts';
import { expiryLeftToFire } from '../deployed/expiry-left-to-fire.ts';
import { withTicketChecks } from '../ticket-check-wiring.ts';
import { wiring } from '../wiring.ts';
import { requestTriggerHandler, type RequestTriggerEvent } from './request-trigger.ts';

/**
 * The purge worker: invoked by a request's `purge-<id>` EventBridge Scheduler schedule (locally,
 * by the timer) when the grace period after its ticket closed ends. Destroys the credential if the
 * purge is still scheduled and due; an early, repeated, cancelled or stale trigger does nothing.
 */
export const createHandler = (deps: PurgeDeps & { logger: Pick<AppDeps['logger'], 'info' | 'error'> }) =>
  requestTriggerHandler('purge', deps.logger, (requestId) => purgeRequest(deps, requestId));

/** What the deployed worker is wired with: the ticket-check queue, and the request's expiry schedule left to fire. */
export const deployedDeps = () => withTicketChecks(wiring(expiryLeftToFire()));

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: RequestTriggerEvent) => (built ??= createHandler(deployedDeps()))(event);
