import type { Context } from 'aws-lambda';
import { methodNotAllowed, notFound } from '#core/errors.ts';
import { errorResponse } from '../responses.ts';
import { matchRoute } from '../routes.ts';
import type { ApiEvent, ApiResult } from '../types.ts';

/** The `$default` route: 405 with Allow where the path exists under another method, else 404. */
export const createHandler = () => async (event: ApiEvent, _context?: Context): Promise<ApiResult> => {
  const match = matchRoute(event.requestContext.http.method, event.rawPath);
  if ('allowed' in match && match.allowed.length > 0) return errorResponse(methodNotAllowed(match.allowed));
  return errorResponse(notFound('No such endpoint.'));
};

export const handler = createHandler();
