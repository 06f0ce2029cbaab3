import type { Logger } from '@aws-lambda-powertools/logger';
import { ApiError } from '#core/errors.ts';
import { errorResponse, withHeaders } from '../responses.ts';
import type { ApiMiddleware } from '../types.ts';
import { unavailableError } from '../unavailable.ts';

/**
 * First in the chain, so its `after` and `onError` run last: every answer gets the rate-limit
 * headers, and every error becomes SPEC.md's error body. A 500 is logged here with the error's
 * name and stack, and leaves with no internal detail.
 */
export const respond = (logger: Logger): ApiMiddleware => ({
  after: (request) => {
    request.response = withHeaders(request.response!, request.internal.rateHeaders);
  },
  onError: (request) => {
    const error = request.error;
    const unavailable = unavailableError(error);
    if (unavailable) {
      // Expected under load or a brief outage: a warning with the kind of failure, no stack.
      logger.warn('dependency unavailable; answered 503', { errorName: error?.name });
    } else if (error instanceof ApiError && error.status === 500) {
      // A failure the service named itself (its message is its own words, never input): the operator needs it.
      logger.error('failure answered 500', { code: error.code, detail: error.message });
    } else if (!(error instanceof ApiError)) {
      // The stack without its first line: a message can echo input, so it stays out of the logs.
      logger.error('unhandled failure', { errorName: error?.name, stack: error?.stack?.split('\n').slice(1).join('\n') });
    }
    request.response = withHeaders(errorResponse(error), request.internal.rateHeaders);
  },
});
