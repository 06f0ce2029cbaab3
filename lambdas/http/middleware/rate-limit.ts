import { rateLimited } from '#core/errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** 429 `rate_limited` with Retry-After once the key's or the organisation's window is full. */
export const rateLimit = (): ApiMiddleware => ({
  before: async (request) => {
    const { caller, rateCount } = request.internal;
    if (!caller || !rateCount) return;
    const decision = await rateCount.judge(caller.org.rateLimits);
    request.internal.rateHeaders = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.resetAt),
    };
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  },
});
