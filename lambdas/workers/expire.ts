import { expireRequest, type ExpiryDeps } from '#core/use-cases/expire-request.ts';
import type { AppDeps } from '../app-deps.ts';
import { wiring } from '../wiring.ts';
import { requestTriggerHandler, type RequestTriggerEvent } from './request-trigger.ts';

/**
 * The expiry worker: invoked by a request's EventBridge Scheduler schedule (locally, by the
 * timer) at the time the request falls due. Expires it if it is still due; an early, repeated or
 * stale trigger does nothing. Logs ids and outcomes only.
 */
export const createHandler = (deps: ExpiryDeps & { logger: Pick<AppDeps['logger'], 'info' | 'error'> }) =>
  requestTriggerHandler('expiry', deps.logger, (requestId) => expireRequest(deps, requestId));

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: RequestTriggerEvent) => (built ??= createHandler(wiring()))(event);
