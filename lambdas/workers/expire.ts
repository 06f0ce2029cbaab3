import { expireRequest, type ExpiryDeps, type ExpiryOutcome } from '#core/use-cases/expire-request.ts';
import type { AppDeps } from '../app-deps.ts';
import { wiring } from '../wiring.ts';

/** What each request's one-time schedule sends (its target Input): `{"requestId": "<ulid>"}`. */
export interface ExpireEvent {
  requestId?: unknown;
}

export interface ExpireResult {
  requestId: string | null;
  outcome: ExpiryOutcome | 'invalid';
}

const REQUEST_ID = /^[0-9a-z]{26}$/;

/**
 * The expiry worker: invoked by a request's EventBridge Scheduler schedule (locally, by the
 * timer) at the time the request falls due. Expires it if it is still due; an early, repeated or
 * stale trigger does nothing. A storage error is thrown, so that Scheduler retries the invocation;
 * a malformed event is logged and dropped, as retrying cannot fix it. Logs ids and outcomes only.
 */
export const createHandler = (deps: ExpiryDeps & { logger: Pick<AppDeps['logger'], 'info' | 'error'> }) =>
  async (event: ExpireEvent): Promise<ExpireResult> => {
    const requestId = typeof event?.requestId === 'string' && REQUEST_ID.test(event.requestId) ? event.requestId : null;
    if (!requestId) {
      deps.logger.error('expiry trigger without a request id; dropped');
      return { requestId: null, outcome: 'invalid' };
    }
    const outcome = await expireRequest(deps, requestId);
    deps.logger.info('expiry trigger handled', { requestId, outcome });
    return { requestId, outcome };
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: ExpireEvent) => (built ??= createHandler(wiring()))(event);
