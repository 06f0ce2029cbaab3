import type { InboundDeps } from '#core/use-cases/inbound/receive-post.ts';
import type { AppDeps } from '../app-deps.ts';

/**
 * The dependencies of the ticket use cases (the status API, the inbound URLs) from the wired
 * ones: the integration's inbound limit is counted by the API's rate limiter, and failed link
 * deliveries and schedules are logged by id only (the sweep covers a schedule).
 */
export const ticketDeps = (deps: AppDeps): InboundDeps => ({
  ...deps,
  inboundRate: deps.rateLimiter,
  onDeliveryFailure: (error, requestId) => deps.logger.error('link delivery failed', { requestId, errorName: (error as Error)?.name }),
  onScheduleFailure: (error, requestId) => deps.logger.warn('schedule failed; the sweep will cover it', { requestId, errorName: (error as Error)?.name }),
});
