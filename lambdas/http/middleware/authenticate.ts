import { apiKeyHash, isWellFormedApiKey } from '#core/api-key-format.ts';
import type { Clock } from '#core/clock.ts';
import { unauthenticated } from '#core/errors.ts';
import { sameDigest } from '#core/hashing.ts';
import type { ApiKeyLookup, ApiKeyUse, Directory } from '#core/ports.ts';
import type { DynamoRateLimiter } from '#store/rate-limiter.ts';
import type { ApiEvent, ApiMiddleware } from '../types.ts';
import { KeyIdentityMemo, type KeyIdentity } from './key-identity-memo.ts';

export interface AuthenticateDeps {
  apiKeys: ApiKeyLookup & ApiKeyUse;
  directory: Directory;
  rateLimiter: Pick<DynamoRateLimiter, 'count'>;
  clock: Clock;
}

/**
 * The one bearer key of the Authorization header, or null. API Gateway joins a header sent twice
 * with a comma, and no key holds one, so two Authorization headers never name a key: the call is
 * refused as unauthenticated (401, as SPEC.md lists for every endpoint) rather than 400, because
 * which key the caller meant cannot be told, and neither may be tried alone.
 */
const bearer = (event: ApiEvent) => {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  if (!header || header.includes(',')) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
};

/**
 * "Last used" for the keys list, to the hour: a write on every call would double the writes of a
 * busy key, so a call writes only when the recorded use is an hour old, once per key per hour.
 * The write runs beside the organisation read; a failure costs the call nothing, since the time
 * is advice for whoever tidies the keys, not a control.
 */
export const LAST_USE_PRECISION_MS = 60 * 60_000;
const noteUseIfStale = (apiKeys: ApiKeyUse, apiKey: { hash: string; lastUsedAt?: string }, now: Date) => {
  const staleBefore = new Date(now.getTime() - LAST_USE_PRECISION_MS).toISOString();
  if (apiKey.lastUsedAt && apiKey.lastUsedAt >= staleBefore) return undefined;
  return apiKeys.noteUse(apiKey.hash, now.toISOString(), staleBefore).catch(() => undefined);
};

/**
 * 401 unless the bearer key exists, is not revoked and has not expired, checked on every call
 * (no cache of validity, so a revoked key is refused at once). The rate-limit count starts here,
 * in parallel with the organisation read, and is judged by the rate-limit middleware next. For a
 * key this function has seen before, both start beside the key read (key-identity-memo.ts).
 */
export const authenticate = (deps: AuthenticateDeps, memo = new KeyIdentityMemo()): ApiMiddleware => {
  const startReads = (identity: KeyIdentity) => {
    const rateCount = deps.rateLimiter.count(identity.keyId, identity.orgId);
    const org = deps.directory.getOrganisation(identity.orgId);
    // Judged (and a failure raised) later, or never when the key is refused.
    org.catch(() => undefined);
    return { rateCount, org };
  };
  return {
    before: async (request) => {
      const presented = bearer(request.event);
      if (!presented || !isWellFormedApiKey(presented)) throw unauthenticated();
      const hash = apiKeyHash(presented);
      const known = memo.get(hash);
      const early = known ? startReads(known) : null;
      const apiKey = await deps.apiKeys.findByHash(hash);
      const now = deps.clock.now();
      if (
        !apiKey ||
        !sameDigest(apiKey.hash, hash) ||
        apiKey.revokedAt !== null ||
        (apiKey.expiresAt !== null && new Date(apiKey.expiresAt) <= now)
      ) {
        // A key this function knew was counted before it was found invalid: that count is not its
        // caller's, and its next calls are not counted before the key read.
        memo.forget(hash);
        await early?.rateCount.release().catch(() => undefined);
        throw unauthenticated();
      }
      const lastUse = noteUseIfStale(deps.apiKeys, apiKey, now);
      const identity = { keyId: apiKey.id, orgId: apiKey.orgId };
      memo.remember(hash, identity);
      const { rateCount, org: orgRead } = early ?? startReads(identity);
      request.internal.rateCount = rateCount;
      const [org] = await Promise.all([orgRead, lastUse]);
      if (!org) {
        await rateCount.release().catch(() => undefined);
        throw unauthenticated();
      }
      request.internal.caller = { org, apiKey, sourceIp: request.event.requestContext?.http?.sourceIp ?? '' };
    },
  };
};
