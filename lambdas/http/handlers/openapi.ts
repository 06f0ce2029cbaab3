import type { Context } from 'aws-lambda';
import document from '../../../docs/openapi.json' with { type: 'json' };
import type { ApiEvent, ApiResult } from '../types.ts';

/** Serialised once per function instance: the document only changes with a deploy. */
const BODY = JSON.stringify(document);

/**
 * GET /v1/openapi.json: the committed OpenAPI document (docs/openapi.json, written by
 * `npm run openapi`), bundled into this function, so it reads nothing and needs no key. Cacheable
 * for a few minutes, and readable from any origin, for documentation tools and client generators.
 */
export const createHandler = () => async (_event: ApiEvent, _context?: Context): Promise<ApiResult> => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
  body: BODY,
});

export const handler = createHandler();
