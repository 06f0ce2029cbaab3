/**
 * What a query parameter an endpoint does not define is told, wherever the query is parsed (the
 * HTTP layer's rule, lambdas/http/query-rule.ts, and the use cases that parse their own filters).
 */
export const UNKNOWN_QUERY_PARAMETER = 'Unknown query parameter.';
