import { ApiError, serviceUnavailable, WriteConflict } from '#core/errors.ts';
import { RETRY_AFTER_SECONDS, transientKind, type TransientKind } from '#store/transient-failure.ts';

/**
 * What the caller is told per kind. Throttling and contention are definite: the write was refused
 * as a whole. A timeout or a dropped connection is not: the SDK's own retry of a transaction
 * carries the same ClientRequestToken, so a write applied before its answer was lost is not applied
 * again, but when every attempt lost its answer the write may stand, and the caller is told so.
 */
const MESSAGES: Record<TransientKind, string> = {
  throttled: 'The service is busy and nothing was changed. Retry after the time in Retry-After.',
  contended: 'The record was busy with another change and nothing was changed. Retry after the time in Retry-After.',
  unreachable: 'The service did not get an answer from its data store in time; the change may have been made. Retry after the time in Retry-After.',
};

/**
 * The 503 `service_unavailable` for a transient failure (see store/transient-failure.ts), or null
 * for any other error. A WriteConflict that reaches the answer is contention too: the use case lost
 * its conditional write to concurrent changes of the same record each time it read and tried
 * again (a burst of new links for one request, say), and nothing was written.
 */
export const unavailableError = (error: unknown): ApiError | null => {
  if (error instanceof ApiError) return null;
  const kind = error instanceof WriteConflict ? 'contended' : transientKind(error);
  return kind ? serviceUnavailable(RETRY_AFTER_SECONDS[kind], MESSAGES[kind], { cause: error }) : null;
};
