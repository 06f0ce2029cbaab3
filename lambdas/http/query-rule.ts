import { validationFailed } from '#core/errors.ts';
import { UNKNOWN_QUERY_PARAMETER } from '#core/query-words.ts';
import { errorResponse } from './responses.ts';
import type { ApiEvent, ApiResult } from './types.ts';

/**
 * One rule for the query string of every operation the OpenAPI document describes but the inbound
 * ticket URLs (which may read their fields from it): the parameters an operation defines are
 * checked, and any other answers 422 `validation_failed` naming it, as an unknown body field does,
 * so a misspelt `?limt=5` never passes silently. This module holds no validator, so the functions
 * that take no parameters (the public documents) stay small.
 */
export { UNKNOWN_QUERY_PARAMETER };

/**
 * What the parsed query hides: a parameter given twice (the gateway joins its values with commas,
 * so `?ticket_ref=A&ticket_ref=B` would read as the reference `A,B`) and escapes that are not UTF-8
 * (`%ff`, read as U+FFFD), each refused on the parameter it is in, as a body's are.
 */
export const refuseMisreadQuery = (event: Pick<ApiEvent, 'rawQueryString'>) => {
  // A Map: a parameter's name is the caller's text, and may be `__proto__`.
  const errors = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const part of (event.rawQueryString ?? '').split('&')) {
    if (!part) continue;
    const split = part.indexOf('=');
    const [rawName, rawValue] = split < 0 ? [part, ''] : [part.slice(0, split), part.slice(split + 1)];
    const name = decodedOrNull(rawName);
    if (name === null) {
      errors.set('query', ['Must be UTF-8 text (a parameter name holds bytes that are not UTF-8).']);
      continue;
    }
    if (decodedOrNull(rawValue) === null) errors.set(name, ['Must be UTF-8 text (it holds bytes that are not UTF-8).']);
    else if (seen.has(name)) errors.set(name, ['Give this parameter once.']);
    seen.add(name);
  }
  if (errors.size > 0) throw validationFailed(Object.fromEntries(errors));
};

/** A form-encoded component decoded, or null when its escapes are not UTF-8. */
const decodedOrNull = (component: string) => {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return null;
  }
};

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
