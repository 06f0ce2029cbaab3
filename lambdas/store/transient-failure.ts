/**
 * DynamoDB answers that mean "not now" rather than "no": throttling, a transaction cancelled only
 * because another one held an item, a timeout or a dropped connection. By the time one reaches a
 * caller the SDK has already retried it (or, for a cancelled transaction, the audit log has), so
 * the call as a whole failed without changing anything it could not undo, and the same call can
 * succeed a moment later. The HTTP layer answers these 503 with Retry-After; workers let them
 * throw, so their queue or stream delivers the record again.
 *
 * The names follow the SDK's own retry classification (@smithy's service-error-classification)
 * and DynamoDB's documented cancellation reasons.
 */
export type TransientKind = 'throttled' | 'contended' | 'unreachable';

/** DynamoDB's throttling exceptions (the capacity, account or request-rate limits). */
const THROTTLING_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'Throttling',
  'TooManyRequestsException',
]);

/** A non-transactional write or a transaction that met another transaction on the same item. */
const CONTENTION_NAMES = new Set(['TransactionConflictException', 'TransactionInProgressException']);

/** The SDK's timeouts and DynamoDB's own "try again" server errors. */
const UNREACHABLE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'InternalServerError', 'ServiceUnavailable']);

/** Node's socket failures: the request may or may not have reached DynamoDB. */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Cancellation reasons that say nothing about the data: the same transaction may succeed later. */
export const TRANSIENT_CANCELLATION_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

interface ErrorShape {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: Array<{ Code?: string }>;
}

/**
 * Whether a cancelled transaction failed only for transient reasons: at least one such reason
 * and none that is about the data (a failed condition, a validation error, an item collection
 * over its limit), which a retry would meet again.
 */
export const isTransientCancellation = (codes: readonly string[]) =>
  codes.some((code) => TRANSIENT_CANCELLATION_REASONS.has(code)) &&
  codes.every((code) => code === 'None' || TRANSIENT_CANCELLATION_REASONS.has(code));

/** The per-item reasons of a TransactionCanceledException, from its field or (some engines) its message. */
const reasonsOf = (error: ErrorShape): string[] => {
  if (error.CancellationReasons?.length) return error.CancellationReasons.map((reason) => reason.Code ?? 'None');
  const listed = /\[([A-Za-z, ]+)\]\s*$/.exec(error.message ?? '');
  return listed ? listed[1].split(',').map((code) => code.trim()) : [];
};

/** Which kind of transient failure `error` is, or null when it is not one (a bug, a refusal, a failed condition). */
export const transientKind = (error: unknown, depth = 0): TransientKind | null => {
  if (!error || typeof error !== 'object' || depth > 5) return null;
  const shape = error as ErrorShape;
  const name = shape.name ?? '';
  if (name === 'AbortError') return null;
  if (THROTTLING_NAMES.has(name) || shape.$metadata?.httpStatusCode === 429) return 'throttled';
  if (CONTENTION_NAMES.has(name)) return 'contended';
  if (name === 'TransactionCanceledException') {
    const reasons = reasonsOf(shape);
    if (!isTransientCancellation(reasons)) return null;
    return reasons.some((code) => code === 'TransactionConflict') ? 'contended' : 'throttled';
  }
  if (UNREACHABLE_NAMES.has(name) || SOCKET_CODES.has(shape.code ?? '')) return 'unreachable';
  if (/socket hang up/i.test(shape.message ?? '')) return 'unreachable';
  const status = shape.$metadata?.httpStatusCode ?? 0;
  if (status >= 500 && status <= 504 && status !== 501) return 'unreachable';
  // A store error wrapped by the code that met it (audit contention that did not settle, ...).
  return transientKind(shape.cause, depth + 1);
};

/**
 * How long a caller should wait before trying again, per kind. Throttling and contention clear
 * within a second or two; an engine that stopped answering needs longer, and the in-progress
 * claim of an Idempotency-Key whose release failed lapses meanwhile.
 */
export const RETRY_AFTER_SECONDS: Record<TransientKind, number> = { throttled: 2, contended: 1, unreachable: 5 };
