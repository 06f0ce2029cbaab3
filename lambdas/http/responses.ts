import { ApiError } from '#core/errors.ts';
import type { ApiResult } from './types.ts';
import { unavailableError } from './unavailable.ts';

/**
 * On every answer, JSON, pages, files and redirects alike: browsers keep to HTTPS for the
 * service's host a year from any answer (deployed the API is HTTPS only; a browser ignores the
 * header over plain http, as locally), and never read an answer as another type than it says.
 */
export const TRANSPORT_HEADERS: Readonly<Record<string, string>> = {
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Answers of the service's JSON are never kept by a browser, a proxy or a CDN, refusals included:
 * they carry a subject's email and phone, receiver URLs, the attempts a link has left. The two
 * public documents that may be cached (the OpenAPI document, the signing keys) build their own.
 */
export const NEVER_STORED: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store' };

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...TRANSPORT_HEADERS, ...NEVER_STORED, ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});

export const noContent = (): ApiResult => ({ statusCode: 204, headers: { ...TRANSPORT_HEADERS, ...NEVER_STORED }, body: '' });

/**
 * SPEC.md's error body. A transient failure of the table (throttled, contended, no answer) is a
 * 503 with Retry-After; anything else that is not an ApiError is a 500 that tells nothing inside.
 */
export const errorResponse = (error: unknown): ApiResult => {
  const unavailable = unavailableError(error);
  if (unavailable) return errorResponse(unavailable);
  if (error instanceof ApiError) {
    const body: Record<string, unknown> = { message: error.message, code: error.code, ...error.extra };
    if (error.errors) body.errors = error.errors;
    return json(error.status, body, error.headers);
  }
  return json(500, { message: 'Something went wrong on our side. Try again later.', code: 'error' });
};

export const withHeaders = (response: ApiResult, headers: Record<string, string> | undefined): ApiResult =>
  headers ? { ...response, headers: { ...(response.headers ?? {}), ...headers } } : response;
