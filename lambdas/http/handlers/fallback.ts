import type { Context } from 'aws-lambda';
import { methodNotAllowed, notFound } from '#core/errors.ts';
import { errorResponse, TRANSPORT_HEADERS } from '../responses.ts';
import { matchRoute } from '../routes.ts';
import type { ApiEvent, ApiResult } from '../types.ts';

/**
 * Where a person who types the service's address lands: the site's root and `/app/` (with its
 * slash, which no route has) lead to the member application. Only for GET and HEAD; anything
 * else there is no page.
 */
const LEADS_TO_APP = new Set(['/', '/app/']);

/**
 * The `$default` route: a redirect to the application from the addresses a person types, else
 * 405 with Allow where the path exists under another method, else 404.
 */
export const createHandler = () => async (event: ApiEvent, _context?: Context): Promise<ApiResult> => {
  const method = event.requestContext.http.method;
  if (LEADS_TO_APP.has(event.rawPath) && (method === 'GET' || method === 'HEAD')) {
    return { statusCode: 302, headers: { ...TRANSPORT_HEADERS, Location: '/app', 'Cache-Control': 'no-store' }, body: '' };
  }
  const match = matchRoute(method, event.rawPath);
  if ('allowed' in match && match.allowed.length > 0) return errorResponse(methodNotAllowed(match.allowed));
  return errorResponse(notFound('No such endpoint.'));
};

export const handler = createHandler();
