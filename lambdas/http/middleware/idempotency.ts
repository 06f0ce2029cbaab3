import canonicalize from 'canonicalize';
import { ApiError, conflict, fieldError, idempotencyKeyReused } from '#core/errors.ts';
import { sha256Hex } from '#core/hashing.ts';
import type { DynamoIdempotency, StoredResponse } from '#store/idempotency.ts';
import type { IdempotentCommits } from '#store/idempotent-commit.ts';
import { errorResponse, withHeaders } from '../responses.ts';
import type { ApiMiddleware, ApiResult, ApiState } from '../types.ts';

export const MAX_KEY_LENGTH = 200;
/** Headers worth replaying; rate-limit headers are always the current call's. */
const REPLAYED_HEADERS = ['Content-Type', 'Location'];

/**
 * SPEC.md's idempotency rules 1 to 3 for every POST: the same key and body replays the first
 * answer (same status and Location, `Idempotency-Replayed: true`, secret fields null); another
 * body answers 422 `idempotency_key_reused`; a concurrent duplicate answers 409 `conflict`.
 * A 5xx is not kept, so a retry runs again, unless the change committed with its prepared answer
 * (an endpoint's `prepareReplay`, store/idempotent-commit.ts): then the retry replays that.
 */
export const idempotency = (
  store: Pick<DynamoIdempotency, 'start' | 'finish' | 'release'>,
  secretFields: readonly string[],
  /** Whose keys these are: the API key by default; a member endpoint names the member. */
  ownerOf: (state: ApiState) => string = (state) => state.caller!.apiKey.id,
  /** Where an endpoint's prepared answer waits to be stored with its change (none: after it, as a 5xx releases). */
  commits?: Pick<IdempotentCommits, 'claimed' | 'prepare'>,
): ApiMiddleware => {
  const keep = async (state: ApiState, response: ApiResult) => {
    const apiKeyId = ownerOf(state);
    try {
      if (response.statusCode >= 500) await store.release(apiKeyId, state.idempotencyKey!);
      else await store.finish(apiKeyId, state.idempotencyKey!, forReplay(response, secretFields));
    } catch {
      // The table failed again while keeping the answer. The caller still gets the answer the call
      // earned (a change that was made is never reported as a failure, which would invite a second
      // one), and the claim lapses by itself after its lock time; until then a retry answers 409
      // with Retry-After.
    }
  };
  return {
    before: async (request) => {
      if (request.event.requestContext.http.method !== 'POST') return;
      const headers = request.event.headers ?? {};
      const key = headers['idempotency-key'] ?? headers['Idempotency-Key'];
      if (key === undefined) return;
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
        throw fieldError('Idempotency-Key', `Must be 1 to ${MAX_KEY_LENGTH} characters.`);
      }
      const fingerprint = sha256Hex(
        `${request.event.requestContext.http.method} ${request.event.rawPath}\n${canonicalize(request.internal.body ?? null)}`,
      );
      const started = await store.start(ownerOf(request.internal), key, fingerprint);
      if (started.outcome === 'mismatch') throw idempotencyKeyReused();
      if (started.outcome === 'in_progress') throw stillProcessing(started.lockedForMs);
      if (started.outcome === 'replay') {
        return withHeaders(
          { statusCode: started.response.statusCode, headers: started.response.headers, body: started.response.body },
          { ...request.internal.rateHeaders, 'Idempotency-Replayed': 'true' },
        );
      }
      request.internal.idempotencyKey = key;
      commits?.claimed(started.claim);
      request.internal.prepareReplay = (response: ApiResult) => commits?.prepare(forReplay(response, secretFields));
    },
    after: async (request) => {
      if (request.internal.idempotencyKey) await keep(request.internal, request.response!);
    },
    onError: async (request) => {
      const state = request.internal;
      // Only errors raised after the key was claimed belong to this key's record.
      if (!state.idempotencyKey) return;
      await keep(state, errorResponse(request.error));
    },
  };
};

/**
 * SPEC.md's 409 for a concurrent duplicate, with Retry-After: the claim is held until its lock
 * time at the latest (sooner when the first call answers), so the client knows when to ask again.
 */
const stillProcessing = (lockedForMs: number) => {
  const error = conflict('A request with this Idempotency-Key is still being processed.');
  const seconds = Math.max(1, Math.ceil(lockedForMs / 1000));
  return new ApiError(error.status, error.code, error.message, undefined, { 'Retry-After': String(seconds) });
};

/** The response as it is kept: secrets shown once are null in every replay. */
const forReplay = (response: ApiResult, secretFields: readonly string[]): StoredResponse => {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) if (response.headers?.[name]) headers[name] = response.headers[name];
  let body = response.body ?? '';
  if (secretFields.length > 0 && body) {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    for (const field of secretFields) if (field in parsed) parsed[field] = null;
    body = JSON.stringify(parsed);
  }
  return { statusCode: response.statusCode, headers, body };
};
