import { apiKeyHash, isWellFormedApiKey } from '#core/api-key-format.ts';
import type { Clock } from '#core/clock.ts';
import { ApiError, unauthenticated } from '#core/errors.ts';
import { sameDigest } from '#core/hashing.ts';
import type { ApiKeyLookup, ApiKeyUse, Directory } from '#core/ports.ts';
import type { DynamoRateLimiter } from '#store/rate-limiter.ts';
import type { IdempotentCommits } from '#store/idempotent-commit.ts';
import { apiKeyStanding } from '#store/caller-standing.ts';
import type { ApiEvent, ApiMiddleware } from '../types.ts';
import { KeyIdentityMemo, type KeyIdentity } from './key-identity-memo.ts';

export interface AuthenticateDeps {
  apiKeys: ApiKeyLookup & ApiKeyUse;
  directory: Directory;
  rateLimiter: Pick<DynamoRateLimiter, 'count'>;
  clock: Clock;
  tableName?: string;
  /** Holds the key's check for the call's changes (store/idempotent-commit.ts). */
  commits?: Pick<IdempotentCommits, 'callerMustStand'>;
}

/**
 * The bearer key of the Authorization header, or why there is none. API Gateway joins a header
 * sent twice with a comma, and no key holds one, so two Authorization headers never name a key:
 * the call is refused as unauthenticated (401, as SPEC.md lists for every endpoint) rather than
 * 400, because which key the caller meant cannot be told, and neither may be tried alone.
 */
const bearer = (event: ApiEvent): { key: string } | { refused: BearerRefusal } => {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  if (!header) return { refused: 'missing' };
  if (header.includes(',')) return { refused: 'invalid_request' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // Another scheme (Basic ...) is a caller that did not know this API takes a bearer key.
  if (!match) return { refused: /^Bearer(\s|$)/i.test(header) ? 'invalid_request' : 'missing' };
  return { key: match[1] };
};

/** The realm every 401 of the API names in its challenge. */
export const BEARER_REALM = 'api';

/**
 * RFC 6750's refusals: no key offered (or another scheme) names no error, an Authorization header
 * that is not one bearer key is `invalid_request`, a key that is malformed, unknown, revoked or
 * expired `invalid_token`.
 */
type BearerRefusal = 'missing' | 'invalid_request' | 'invalid_token';

/**
 * 401 with the challenge RFC 9110 requires of every 401 (`WWW-Authenticate`), in RFC 6750's form:
 * `Bearer realm="api"`, plus `error="..."` when a key was offered and refused. The body is the same
 * whatever the reason, so a caller learns no more from it than from the status.
 */
const bearerRefused = (reason: BearerRefusal) => {
  const error = unauthenticated();
  const challenge = `Bearer realm="${BEARER_REALM}"${reason === 'missing' ? '' : `, error="${reason}"`}`;
  return new ApiError(error.status, error.code, error.message, undefined, { 'WWW-Authenticate': challenge });
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
      if ('refused' in presented) throw bearerRefused(presented.refused);
      if (!isWellFormedApiKey(presented.key)) throw bearerRefused('invalid_token');
      const hash = apiKeyHash(presented.key);
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
        throw bearerRefused('invalid_token');
      }
      // Each change the call makes commits only while the key stands: a revoke that lands first wins.
      if (deps.tableName) deps.commits?.callerMustStand(apiKeyStanding(deps.tableName, apiKey.hash, () => bearerRefused('invalid_token')));
      const lastUse = noteUseIfStale(deps.apiKeys, apiKey, now);
      const identity = { keyId: apiKey.id, orgId: apiKey.orgId };
      memo.remember(hash, identity);
      const { rateCount, org: orgRead } = early ?? startReads(identity);
      request.internal.rateCount = rateCount;
      const [org] = await Promise.all([orgRead, lastUse]);
      if (!org) {
        await rateCount.release().catch(() => undefined);
        throw bearerRefused('invalid_token');
      }
      request.internal.caller = { org, apiKey, sourceIp: request.event.requestContext?.http?.sourceIp ?? '' };
    },
  };
};
