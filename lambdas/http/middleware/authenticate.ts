import { apiKeyHash, isWellFormedApiKey } from '#core/api-key-format.ts';
import type { Clock } from '#core/clock.ts';
import { unauthenticated } from '#core/errors.ts';
import { sameDigest } from '#core/hashing.ts';
import type { ApiKeyLookup, Directory } from '#core/ports.ts';
import type { DynamoRateLimiter } from '#store/rate-limiter.ts';
import type { ApiEvent, ApiMiddleware } from '../types.ts';

export interface AuthenticateDeps {
  apiKeys: ApiKeyLookup;
  directory: Directory;
  rateLimiter: Pick<DynamoRateLimiter, 'count'>;
  clock: Clock;
}

const bearer = (event: ApiEvent) => {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1] : null;
};

/**
 * 401 unless the bearer key exists, is not revoked and has not expired, checked on every call
 * (no cache, so a revoked key is refused at once). The rate-limit count starts here, in parallel
 * with the organisation read, and is judged by the rate-limit middleware next.
 */
export const authenticate = (deps: AuthenticateDeps): ApiMiddleware => ({
  before: async (request) => {
    const presented = bearer(request.event);
    if (!presented || !isWellFormedApiKey(presented)) throw unauthenticated();
    const hash = apiKeyHash(presented);
    const apiKey = await deps.apiKeys.findByHash(hash);
    const now = deps.clock.now();
    if (
      !apiKey ||
      !sameDigest(apiKey.hash, hash) ||
      apiKey.revokedAt !== null ||
      (apiKey.expiresAt !== null && new Date(apiKey.expiresAt) <= now)
    ) {
      throw unauthenticated();
    }
    const rateCounts = deps.rateLimiter.count(apiKey.id, apiKey.orgId);
    rateCounts.catch(() => undefined); // judged (and its failure raised) by the rate-limit middleware
    request.internal.rateCounts = rateCounts;
    const org = await deps.directory.getOrganisation(apiKey.orgId);
    if (!org) throw unauthenticated();
    request.internal.caller = { org, apiKey, sourceIp: request.event.requestContext?.http?.sourceIp ?? '' };
  },
});
