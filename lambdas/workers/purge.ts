import { purgeRequest, type PurgeDeps, type PurgeOutcome } from '#core/use-cases/tickets/purge-request.ts';
import type { AppDeps } from '../app-deps.ts';
import { wiring } from '../wiring.ts';

export interface PurgeResult {
  requestId: string | null;
  outcome: PurgeOutcome | 'invalid';
}

const REQUEST_ID = /^[0-9a-z]{26}$/;

/**
 * The purge worker: invoked by a request's `purge-<id>` EventBridge Scheduler schedule (locally,
 * by the timer) when the grace period after its ticket closed ends. Destroys the credential if the
 * purge is still scheduled and due; an early, repeated, cancelled or stale trigger does nothing.
 * A storage error is thrown so Scheduler retries; a malformed event is logged and dropped.
 */
export const createHandler = (deps: PurgeDeps & { logger: Pick<AppDeps['logger'], 'info' | 'error'> }) =>
  async (event: { requestId?: unknown }): Promise<PurgeResult> => {
    const requestId = typeof event?.requestId === 'string' && REQUEST_ID.test(event.requestId) ? event.requestId : null;
    if (!requestId) {
      deps.logger.error('purge trigger without a request id; dropped');
      return { requestId: null, outcome: 'invalid' };
    }
    const outcome = await purgeRequest(deps, requestId);
    deps.logger.info('purge trigger handled', { requestId, outcome });
    return { requestId, outcome };
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: { requestId?: unknown }) => (built ??= createHandler(wiring()))(event);
