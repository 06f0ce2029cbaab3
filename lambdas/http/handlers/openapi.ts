import type { Context } from 'aws-lambda';
import document from '../../../docs/openapi.json' with { type: 'json' };
import { queryRefusal } from '../query-rule.ts';
import { TRANSPORT_HEADERS } from '../responses.ts';
import type { ApiEvent, ApiResult } from '../types.ts';

/** Serialised once per function instance: the document only changes with a deploy. */
const BODY = JSON.stringify(document);

/**
 * GET /v1/openapi.json: the committed OpenAPI document (docs/openapi.json, written by
 * `npm run openapi`), bundled into this function, so it reads nothing and needs no key. Cacheable
 * for a few minutes, and readable from any origin, for documentation tools and client generators.
 * It defines no query parameter, so any answers 422 as on every operation (query-rule.ts).
 */
export const createHandler = () => async (event: ApiEvent, _context?: Context): Promise<ApiResult> => {
  const refused = queryRefusal(event);
  if (refused) return refused;
  return {
    statusCode: 200,
    headers: { ...TRANSPORT_HEADERS, 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
    body: BODY,
  };
};

export const handler = createHandler();
