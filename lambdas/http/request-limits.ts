/**
 * The size limits a request meets before any endpoint reads it, the same deployed and locally.
 *
 * Deployed, API Gateway (HTTP API) refuses a payload over 10 MB and a request line plus header
 * values over 10,240 bytes, and Lambda refuses a synchronous invocation whose event is over 6 MB
 * (LAMBDA_EVENT_BYTES). The event holds the body, as base64 when API Gateway takes it for binary
 * (a third larger: a form post, for one), beside the headers and the request's context, so the
 * body's limit is 4 MiB: at 6 MiB the event itself would be too large, Lambda would refuse it and
 * the caller would get API Gateway's error instead of this service's 413 (as may a body made
 * mostly of characters the event's JSON escapes, which grows up to sixfold; docs/decisions.md). The largest body the
 * service defines, a submission with five 256 KiB attachments, is about 1.7 MB. The local gateway
 * enforces the same figures, and every handler checks the body again in case one reaches it.
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Lambda's limit on a synchronous invocation's payload, the API Gateway event here: 6 MB. */
export const LAMBDA_EVENT_BYTES = 6 * 1024 * 1024;

/** API Gateway HTTP API quota: "Total combined size of request line and header values", not raisable. */
export const MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES = 10_240;

/**
 * The deepest nesting a JSON body may have. The deepest body SPEC.md defines nests four levels
 * (a sealed envelope's recipients); anything past this is refused as a field error instead of
 * being walked by the recursive canonicalisation behind idempotency fingerprints and audit hashes.
 */
export const MAX_JSON_DEPTH = 32;

/** The size of the body as sent: API Gateway passes a body that is not text as base64. */
export const bodyBytesOf = (body: string | undefined | null, isBase64Encoded: boolean | undefined) => {
  if (!body) return 0;
  return isBase64Encoded ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body, 'utf8');
};
