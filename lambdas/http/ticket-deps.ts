import type { InboundDeps } from '#core/use-cases/inbound/receive-post.ts';
import type { AppDeps } from '../app-deps.ts';
import { LINK_DELIVERY_FAILED } from '../failure-logs.ts';

/**
 * The dependencies of the ticket use cases (the status API, the inbound URLs) from the wired
 * ones: the integration's inbound limit is counted by the API's rate limiter, and a failed link
 * delivery is logged by id only (a failed schedule is logged by the wired scheduler itself).
 */
export const ticketDeps = (deps: AppDeps): InboundDeps => ({
  ...deps,
  inboundRate: deps.rateLimiter,
  onDeliveryFailure: (error, requestId) => deps.logger.error(LINK_DELIVERY_FAILED, { requestId, errorName: (error as Error)?.name }),
  onCheckFailure: (error) => deps.logger.error('ticket check could not be queued', { errorName: (error as Error)?.name }),
});
