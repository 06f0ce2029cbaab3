import type { AppDeps } from '../app-deps.ts';

const REQUEST_ID = /^[0-9a-z]{26}$/;

/** What a request's one-time schedule sends (its target Input): `{"requestId": "<ulid>"}`. */
export interface RequestTriggerEvent {
  requestId?: unknown;
}

export interface RequestTriggerResult<Outcome> {
  requestId: string | null;
  outcome: Outcome | 'invalid';
}

/**
 * A worker that one request's schedule invokes (expiry, purge): the request id is checked, the
 * work done, the outcome logged by id. A storage error is thrown, so that Scheduler retries the
 * invocation; a malformed event is logged and dropped, as retrying cannot fix it.
 */
export const requestTriggerHandler =
  <Outcome extends string>(kind: string, logger: Pick<AppDeps['logger'], 'info' | 'error'>, run: (requestId: string) => Promise<Outcome>) =>
  async (event: RequestTriggerEvent): Promise<RequestTriggerResult<Outcome>> => {
    const requestId = typeof event?.requestId === 'string' && REQUEST_ID.test(event.requestId) ? event.requestId : null;
    if (!requestId) {
      logger.error(`${kind} trigger without a request id; dropped`);
      return { requestId: null, outcome: 'invalid' };
    }
    const outcome = await run(requestId);
    logger.info(`${kind} trigger handled`, { requestId, outcome });
    return { requestId, outcome };
  };
