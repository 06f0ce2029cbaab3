import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiLambda } from './types.ts';

/**
 * Builds the wired handler on first use, so importing a handler module has no side effects. A
 * module of its own: the subject, member, share and inbound handlers use it without the API
 * key middleware stack of api-handler.ts (and its IP parsing) landing in their bundles.
 */
export const lazyHandler = (build: () => ApiLambda) => {
  let built: ApiLambda | undefined;
  return (event: ApiEvent, context: Context) => (built ??= build())(event, context);
};
