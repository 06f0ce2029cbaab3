import { payloadTooLarge } from '#core/errors.ts';
import { bodyBytesOf, MAX_BODY_BYTES } from '../request-limits.ts';
import type { ApiEvent, ApiMiddleware } from '../types.ts';

/** Throws 413 `payload_too_large` when the event's body is over the limit a deployed function gets. */
export const assertBodyWithinLimit = (event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>) => {
  if (bodyBytesOf(event.body, event.isBase64Encoded) > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
};

/**
 * For handlers that read the body without the JSON middleware (which checks it too): API Gateway
 * and Lambda stop such a body before the function runs, so this only answers one that got past.
 */
export const bodyLimit = (): ApiMiddleware => ({
  before: (request) => assertBodyWithinLimit(request.event),
});
