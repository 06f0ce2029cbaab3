import { validationFailed } from '#core/errors.ts';
import { errorResponse } from './responses.ts';
import type { ApiEvent, ApiResult } from './types.ts';

/**
 * One rule for the query string of every operation the OpenAPI document describes but the inbound
 * ticket URLs (which may read their fields from it): the parameters an operation defines are
 * checked, and any other answers 422 `validation_failed` naming it, as an unknown body field does,
 * so a misspelt `?limt=5` never passes silently. This module holds no validator, so the functions
 * that take no parameters (the public documents) stay small.
 */
export const UNKNOWN_QUERY_PARAMETER = 'Unknown query parameter.';

/** 422 naming every query parameter of a call to an operation that defines none. */
export const refuseQueryParameters = (event: Pick<ApiEvent, 'queryStringParameters'>) => {
  const names = Object.keys(event.queryStringParameters ?? {});
  if (names.length > 0) throw validationFailed(Object.fromEntries(names.map((name) => [name, [UNKNOWN_QUERY_PARAMETER]])));
};

/** The same rule for a handler outside the API middleware: its 422 answer, or null when the call has no query. */
export const queryRefusal = (event: Pick<ApiEvent, 'queryStringParameters'>): ApiResult | null => {
  try {
    refuseQueryParameters(event);
    return null;
  } catch (error) {
    return errorResponse(error);
  }
};
