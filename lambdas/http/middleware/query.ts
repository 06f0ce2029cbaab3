import { refuseQueryParameters } from '../query-rule.ts';
import type { ApiEvent, ApiMiddleware } from '../types.ts';

/**
 * The call's query, read by the endpoint's parser into `query`, or refused parameter by parameter
 * when the endpoint defines none (query-rule.ts). Before idempotency: a refused query is not kept
 * as the Idempotency-Key's answer (the key's fingerprint covers the body, not the query).
 */
export const queryParameters = (parse?: (event: ApiEvent) => unknown): ApiMiddleware => ({
  before: (request) => {
    if (parse) request.internal.query = parse(request.event);
    else refuseQueryParameters(request.event);
  },
});
