/**
 * The service's error vocabulary. Every error a caller can see is an ApiError with the
 * HTTP status and `code` of SPEC.md's Errors table; anything else becomes a 500 `error`
 * with no internal detail (see http/middleware/error-handler.ts).
 */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
    options?: { cause?: unknown; extra?: Record<string, unknown> },
  ) {
    super(message, options);
    this.extra = options?.extra;
  }
  /** Further fields of the error body beside message and code (never a secret). */
  readonly extra?: Record<string, unknown>;
}

export const unauthenticated = () =>
  new ApiError(401, 'unauthenticated', 'The API key is missing, unknown, revoked or expired.');
export const forbidden = (message = 'This key may not perform this operation.') =>
  new ApiError(403, 'forbidden', message);
/** A plan gate (core/plans.ts decides which, and says why). */
export const planRequired = (message: string) => new ApiError(403, 'plan_required', message);
export const notFound = (message = 'No such record.') => new ApiError(404, 'not_found', message);
export const illegalTransition = (message: string) => new ApiError(409, 'illegal_transition', message);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);
export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
export const methodNotAllowed = (allowed: string[]) =>
  new ApiError(405, 'method_not_allowed', 'This method is not allowed on this path.', undefined, {
    Allow: allowed.join(', '),
  });
/**
 * The most fields one 422 names. A body of thousands of unknown or wrong fields (a 4 MiB body holds
 * hundreds of thousands) would make an answer several times its size, past the 6 MB a Lambda may
 * answer; the caller fixes the first ones and is told of the rest when it sends again.
 */
export const MAX_FIELDS_NAMED = 100;

export const validationFailed = (errors: FieldErrors, message = 'The request is invalid.') => {
  const fields = Object.entries(errors);
  if (fields.length <= MAX_FIELDS_NAMED) return new ApiError(422, 'validation_failed', message, errors);
  const named = `${message} The first ${MAX_FIELDS_NAMED} of the ${fields.length} fields refused are named.`;
  return new ApiError(422, 'validation_failed', named, Object.fromEntries(fields.slice(0, MAX_FIELDS_NAMED)));
};
export const fieldError = (field: string, message: string) => validationFailed({ [field]: [message] });
export const idempotencyKeyReused = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different request body.',
  );
/**
 * Over-limit requests, named by their HTTP reason phrases (RFC 9110 "Content Too Large", once
 * "Payload Too Large"; RFC 6585 "Request Header Fields Too Large") in the snake_case of SPEC.md's
 * other codes, so a client that knows the status knows the code.
 */
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, 'payload_too_large', `The request body is larger than the limit of ${limitBytes} bytes.`);
export const headerFieldsTooLarge = (limitBytes: number) =>
  new ApiError(
    431,
    'request_header_fields_too_large',
    `The request line and header values together are larger than the limit of ${limitBytes} bytes.`,
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', 'Too many requests. Retry after the time in Retry-After.', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/**
 * A dependency (the table, mostly) was throttled, contended or did not answer, after its own
 * retries; nothing was half-written and the same call can succeed later. SPEC.md's table has
 * `rate_limited` for the caller's own rate (429) and `error` for failures a retry will not mend;
 * this is neither, so it gets its own code beside the status it names, and, as 429 does, a
 * Retry-After header that tells a client when to send the same call again (with the same
 * Idempotency-Key, if it used one).
 */
export const serviceUnavailable = (
  retryAfterSeconds: number,
  message = 'The service is briefly unavailable. Retry after the time in Retry-After.',
  options?: { cause?: unknown },
) => new ApiError(503, 'service_unavailable', message, undefined, { 'Retry-After': String(retryAfterSeconds) }, options);

/**
 * The organisation's audit chain no longer holds entries a record's trail names (deleted from the
 * table): the service will not sign a certificate that leaves them out. A 500 `error` whose
 * message names the entries, logged for the operator (http/middleware/respond.ts).
 */
export const entriesMissing = (seqs: readonly number[]) =>
  new ApiError(
    500,
    'error',
    `The audit chain no longer holds ${seqs.length === 1 ? 'entry' : 'entries'} ${seqs.join(', ')} of this record's trail: no certificate is issued that would leave ${seqs.length === 1 ? 'it' : 'them'} out.`,
  );

/** Thrown by stores when an optimistic write lost a race; use cases retry on it. */
export class WriteConflict extends Error {
  override readonly name = 'WriteConflict';
}

/** Reads, decides and writes again while a condition is lost to a concurrent change (a few times at most). */
export const retryOnConflict = async <Result>(attempt: () => Promise<Result>, isConflict: (error: unknown) => boolean = (error) => error instanceof WriteConflict): Promise<Result> => {
  for (let race = 1; ; race++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || race >= 5) throw error;
    }
  }
};
