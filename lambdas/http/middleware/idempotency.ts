import canonicalize from 'canonicalize';
import { ApiError, conflict, fieldError, idempotencyKeyReused } from '#core/errors.ts';
import { characterCount } from '#core/characters.ts';
import type { CodeKey } from '#core/code-key.ts';
import { sha256Hex } from '#core/hashing.ts';
import type { DynamoIdempotency, StoredResponse } from '#store/idempotency.ts';
import type { Claim, IdempotentCommits } from '#store/idempotent-commit.ts';
import { errorResponse, NEVER_STORED, TRANSPORT_HEADERS, withHeaders } from '../responses.ts';
import type { ApiMiddleware, ApiRequest, ApiResult, ApiState } from '../types.ts';

export const MAX_KEY_LENGTH = 200;
/** Headers worth replaying (a replay is as uncacheable as its first answer); rate-limit headers are always the current call's. */
const REPLAYED_HEADERS = ['Content-Type', 'Location', 'Cache-Control'];

export interface IdempotencyOptions {
  /** Fields of the answer shown once: null in every replay, so never stored. */
  secretFields?: readonly string[];
  /**
   * Whose keys these are, so one owner's key never replays another's answer: the API key by
   * default; a member endpoint names the member, an inbound URL its integration.
   */
  ownerOf?: (state: ApiState) => string;
  /** Where an endpoint's prepared answer waits to be stored with its change (none: after it, as a 5xx releases). */
  commits?: Pick<IdempotentCommits, 'claimed' | 'prepare'>;
  /** What "the same body" means: by default a SHA-256 of the method, the path and the canonical JSON body (none is `{}`). */
  fingerprintOf?: (request: ApiRequest) => string | Promise<string>;
  /** Statuses not kept beside a 5xx and a 401 (an inbound URL's: what its admission answers before any key is claimed). */
  released?: readonly number[];
}

/**
 * The body a fingerprint is taken of: none (or an empty one) is `{}`, which every endpoint reads
 * alike and many clients send in its place on a POST whose body is optional, so a retry that
 * sends the other one replays. Nothing else is equated: `null`, `[]` or any other value is a body
 * of its own.
 */
const fingerprintedBody = (request: ApiRequest) => (request.internal.body === undefined ? {} : request.internal.body);

const isEmptyBody = ({ internal: { body } }: ApiRequest) =>
  body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);

const fingerprintText = (request: ApiRequest) =>
  `${request.event.requestContext.http.method} ${request.event.rawPath}\n${canonicalize(fingerprintedBody(request))}`;
const jsonFingerprint = (request: ApiRequest) => sha256Hex(fingerprintText(request));

/**
 * The fingerprint of a body that holds a secret the service seals (a helpdesk's credentials, an
 * integration's signing secret): an HMAC under the code key (a KMS HMAC key deployed, which never
 * leaves KMS), not a plain SHA-256, which anyone reading the table or a backup could try a
 * dictionary of passwords against. Its message names its purpose, apart from a code's.
 */
export const KEYED_FINGERPRINT_PREFIX = 'idempotency fingerprint\n';
export const keyedJsonFingerprint = (codeKey: CodeKey) => (request: ApiRequest) => codeKey.mac(`${KEYED_FINGERPRINT_PREFIX}${fingerprintText(request)}`);

/**
 * SPEC.md's idempotency rules 1 to 3 for every POST: the same key and body replays the first
 * answer (same status and Location, `Idempotency-Replayed: true`, secret fields null); another
 * body answers 422 `idempotency_key_reused`; a concurrent duplicate answers 409 `conflict`.
 * A 5xx (or a 401) is not kept, so a retry runs again, unless the change committed with its prepared answer
 * (an endpoint's `prepareReplay`, store/idempotent-commit.ts): then the retry replays that.
 */
export const idempotency = (
  store: Pick<DynamoIdempotency, 'start' | 'finish' | 'release'>,
  options: IdempotencyOptions = {},
): ApiMiddleware => {
  const { secretFields = [], ownerOf = (state) => state.caller!.apiKey.id, commits, fingerprintOf = jsonFingerprint, released = [] } = options;
  const keep = async (claim: Claim, response: ApiResult) => {
    try {
      // A 401 is not kept either: the call's key was revoked, or its member disabled, while it was
      // under way, and it changed nothing. It says who called, not what was asked, as a 401 before
      // the claim does; the same key from a caller let in again makes the change.
      if (response.statusCode >= 500 || response.statusCode === 401 || released.includes(response.statusCode)) await store.release(claim);
      else await store.finish(claim, forReplay(response, secretFields));
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
      const length = keyLength(key);
      if (length === 0 || length > MAX_KEY_LENGTH) {
        throw fieldError('Idempotency-Key', `Must be 1 to ${MAX_KEY_LENGTH} characters.`);
      }
      // A record kept before a missing body was taken as `{}` holds, for a call sent with none, the
      // fingerprint it had then (of `null`): a retry with none, or with `{}`, is still that call.
      const former = isEmptyBody(request) ? await fingerprintOf({ ...request, internal: { ...request.internal, body: null } }) : undefined;
      const started = await store.start(ownerOf(request.internal), key, await fingerprintOf(request), former);
      if (started.outcome === 'mismatch') throw idempotencyKeyReused();
      if (started.outcome === 'in_progress') throw stillProcessing(started.lockedForMs);
      if (started.outcome === 'replay') {
        return withHeaders(
          { statusCode: started.response.statusCode, headers: started.response.headers, body: started.response.body },
          // no-store whatever was kept: an answer stored before every answer carried it still replays for 24 hours.
          // The transport headers too: a replay leaves early, past the middlewares that add them to every other answer.
          { ...TRANSPORT_HEADERS, ...NEVER_STORED, ...request.internal.rateHeaders, 'Idempotency-Replayed': 'true' },
        );
      }
      request.internal.idempotencyClaim = started.claim;
      commits?.claimed(started.claim);
      request.internal.prepareReplay = (response: ApiResult) => commits?.prepare(forReplay(response, secretFields));
    },
    after: async (request) => {
      if (request.internal.idempotencyClaim) await keep(request.internal.idempotencyClaim, request.response!);
    },
    onError: async (request) => {
      // Only errors raised after the key was claimed belong to this key's record.
      const claim = request.internal.idempotencyClaim;
      if (claim) await keep(claim, errorResponse(request.error));
    },
  };
};

/**
 * The key's length in characters as its sender wrote them (SPEC.md: at most 200 characters).
 * Node hands a header's bytes over as one character each (Latin-1), so a key sent as UTF-8 would
 * count its bytes: `é` two, an emoji four. Such a key is read back as UTF-8 to be counted; one
 * that is not UTF-8, or was already decoded, is counted as it is. The key itself is kept as given.
 */
export const keyLength = (key: string) => {
  const bytes = Buffer.from(key, 'latin1');
  if (bytes.toString('latin1') === key && bytes.some((byte) => byte >= 0x80)) {
    try {
      return characterCount(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      // Not UTF-8: each byte is a character of its own.
    }
  }
  return characterCount(key);
};

/**
 * Runs each invocation of `handler` in its own scope of `commits`, so an answer an endpoint
 * prepares is stored in its change's transaction (store/idempotent-commit.ts); without `commits`,
 * the handler as it is.
 */
export const withReplayScope = <Handler extends (...args: never[]) => unknown>(commits: Pick<IdempotentCommits, 'scope'> | undefined, handler: Handler): Handler =>
  (commits ? (...args: Parameters<Handler>) => commits.scope(() => handler(...args)) : handler) as Handler;

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
