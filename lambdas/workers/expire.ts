import { expireRequest, type ExpiryDeps } from '#core/use-cases/expire-request.ts';
import { endShare } from '#core/use-cases/shares/share-lifecycle.ts';
import type { ShareDeps } from '#core/use-cases/shares/share-ports.ts';
import type { AppDeps } from '../app-deps.ts';
import { wiring } from '../wiring.ts';
import { withShareStore } from '../store-wiring.ts';
import { requestTriggerHandler, type RequestTriggerEvent } from './request-trigger.ts';

/**
 * The expiry worker: invoked by a request's or a share's EventBridge Scheduler schedule (locally,
 * by the timer) at the time it falls due. Both are ULIDs in one schedule namespace; an id that
 * names no request is a share's. Expires it if it is still due; an early, repeated or stale
 * trigger does nothing. Logs ids and outcomes only.
 */
export const createHandler = (deps: ExpiryDeps & Partial<ShareDeps> & { logger: Pick<AppDeps['logger'], 'info' | 'error'> }) =>
  requestTriggerHandler('expiry', deps.logger, async (id) => {
    const outcome = await expireRequest(deps, id);
    if (outcome !== 'missing' || !deps.shares) return outcome;
    // A share not yet due, already ended, or no record at all: nothing to do.
    return (await endShare({ ...deps, shares: deps.shares }, id, 'expired')) ? ('share_expired' as const) : ('share_unchanged' as const);
  });

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: RequestTriggerEvent) => (built ??= createHandler(withShareStore(wiring())))(event);
