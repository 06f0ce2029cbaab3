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
export const planRequired = () =>
  new ApiError(403, 'plan_required', 'Your plan does not include API access. Upgrade to Team or above.');
export const notFound = (message = 'No such record.') => new ApiError(404, 'not_found', message);
export const illegalTransition = (message: string) => new ApiError(409, 'illegal_transition', message);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);
export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
export const methodNotAllowed = (allowed: string[]) =>
  new ApiError(405, 'method_not_allowed', 'This method is not allowed on this path.', undefined, {
    Allow: allowed.join(', '),
  });
export const validationFailed = (errors: FieldErrors, message = 'The request is invalid.') =>
  new ApiError(422, 'validation_failed', message, errors);
export const fieldError = (field: string, message: string) => validationFailed({ [field]: [message] });
export const idempotencyKeyReused = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different request body.',
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', 'Too many requests. Retry after the time in Retry-After.', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/** Thrown by stores when an optimistic write lost a race; use cases retry on it. */
export class WriteConflict extends Error {
  override readonly name = 'WriteConflict';
}
