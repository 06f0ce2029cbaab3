import type * as z from 'zod/mini';
import { parseOrThrow } from '#core/validation.ts';
import { refuseMisreadQuery, UNKNOWN_QUERY_PARAMETER } from './query-rule.ts';
import type { ApiEvent } from './types.ts';

/** The query of an operation that defines parameters, by its schema (query-rule.ts: the rule). */
export const parseQuery = <S extends z.core.$ZodType>(schema: S, event: Pick<ApiEvent, 'queryStringParameters' | 'rawQueryString'>): z.infer<S> => {
  refuseMisreadQuery(event);
  return parseOrThrow(schema, event.queryStringParameters ?? {}, UNKNOWN_QUERY_PARAMETER);
};
