import { sweepDue, type ExpiryDeps, type SweepOptions } from '#core/use-cases/expire-request.ts';
import type { AppDeps } from '../app-deps.ts';
import { wiring } from '../wiring.ts';

export interface SweepSummary {
  expired: number;
  failed: number;
}

/**
 * The expiry sweep, run every five minutes deployed (every minute locally): expires every live
 * request already due, found through the byDue index, whatever became of its one-time schedule.
 * A request it cannot expire is logged by id and left for the next sweep. Logs counts and ids only.
 */
export const createHandler = (deps: ExpiryDeps & { logger: Pick<AppDeps['logger'], 'info' | 'error' | 'debug'> }, options: Omit<SweepOptions, 'onFailure'> = {}) =>
  async (): Promise<SweepSummary> => {
    const result = await sweepDue(deps, {
      ...options,
      onFailure: (error, requestId) => deps.logger.error('sweep could not expire a request', { requestId, errorName: (error as Error)?.name }),
    });
    const summary = { expired: result.expired, failed: result.failed.length };
    if (summary.expired > 0 || summary.failed > 0) deps.logger.info('expiry sweep', summary);
    else deps.logger.debug('expiry sweep', summary);
    return summary;
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = () => (built ??= createHandler(wiring()))();
