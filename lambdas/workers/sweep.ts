import { sweepDue, type SweepOptions } from '#core/use-cases/expire-request.ts';
import { settleDueRequest, type PurgeDeps } from '#core/use-cases/tickets/purge-request.ts';
import { sweepDueShares } from '#core/use-cases/shares/share-lifecycle.ts';
import type { ShareDeps } from '#core/use-cases/shares/share-ports.ts';
import type { AppDeps } from '../app-deps.ts';
import { expiryLeftToFire } from '../deployed/expiry-left-to-fire.ts';
import { withTicketChecks } from '../ticket-check-wiring.ts';
import { wiring } from '../wiring.ts';
import { withDueRequests, withShareStore } from '../store-wiring.ts';
import type { DueRequests } from '#core/ports.ts';

export interface SweepSummary {
  expired: number;
  purged: number;
  failed: number;
  sharesExpired: number;
}

/**
 * The sweep, run every five minutes deployed (every minute locally): expires every live request
 * already due, and completes every submitted request whose ticket-close grace period has ended,
 * found through the byDue index, whatever became of their one-time schedules, and expires every
 * live share past its expiry. A request it
 * cannot settle is logged by id and left for the next sweep. Logs counts and ids only.
 */
export const createHandler = (
  deps: PurgeDeps & Partial<ShareDeps> & { dueRequests: DueRequests; logger: Pick<AppDeps['logger'], 'info' | 'error' | 'debug'> },
  options: Omit<SweepOptions, 'onFailure' | 'settle'> = {},
) =>
  async (): Promise<SweepSummary> => {
    const result = await sweepDue(deps, {
      ...options,
      settle: (requestId) => settleDueRequest(deps, requestId),
      onFailure: (error, requestId) => deps.logger.error('sweep could not settle a request', { requestId, errorName: (error as Error)?.name }),
    });
    const shares = deps.shares
      ? await sweepDueShares(
          { ...deps, shares: deps.shares },
          (error, shareId) => deps.logger.error('sweep could not expire a share', { shareId, errorName: (error as Error)?.name }),
          { maxRounds: options.maxRounds, pageSize: options.pageSize },
        )
      : { expired: 0, failed: 0 };
    const summary = { expired: result.expired, purged: result.purged, failed: result.failed.length + shares.failed, sharesExpired: shares.expired };
    if (summary.expired > 0 || summary.purged > 0 || summary.failed > 0 || summary.sharesExpired > 0) deps.logger.info('expiry sweep', summary);
    else deps.logger.debug('expiry sweep', summary);
    return summary;
  };

/** What the deployed sweep is wired with: the due index, shares, the ticket-check queue, and the expiry schedules of the requests it purges left to fire. */
export const deployedDeps = () => withDueRequests(withShareStore(withTicketChecks(wiring(expiryLeftToFire()))));

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = () => (built ??= createHandler(deployedDeps()))();
