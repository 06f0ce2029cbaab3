import type { HandoffRequest } from './model.ts';
import type { ExpiryScheduler } from './ports.ts';
import { dueAt } from './subject-flow.ts';

/** What a use case needs to keep a request's expiry trigger in step with its state. */
export interface ExpiryScheduling {
  /**
   * Optional so that callers (and tests) that rely on the sweep alone need not pass one; every
   * wired handler gets one through AppDeps.
   */
  scheduler?: ExpiryScheduler;
  /** Told when arming or cancelling failed; the change itself stands, the sweep covers the gap. */
  onScheduleFailure?: (error: unknown, requestId: string) => void;
}

/**
 * After a committed change: arms the request's expiry at its due time (link_expires_at while
 * pending or opened, record_expires_at once submitted), or cancels it once the request has ended.
 * Never throws: the change is already stored, and the sweep expires whatever a missing schedule
 * leaves behind; a stale schedule fires once and finds nothing to do.
 */
export const syncExpirySchedule = async (deps: ExpiryScheduling, request: HandoffRequest): Promise<void> => {
  if (!deps.scheduler) return;
  const due = dueAt(request);
  try {
    if (due) await deps.scheduler.schedule(request.id, due);
    else await deps.scheduler.cancel(request.id);
  } catch (error) {
    try {
      deps.onScheduleFailure?.(error, request.id);
    } catch {
      // a failing reporter must not fail the change either
    }
  }
};
