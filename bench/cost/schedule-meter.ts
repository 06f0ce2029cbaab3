/**
 * EventBridge Scheduler. Deployed, arming a request's expiry is CreateSchedule, or, when the
 * request already has one, a refused CreateSchedule and an UpdateSchedule; cancelling is
 * DeleteSchedule (lambdas/adapters/eventbridge-scheduler.ts). None of these calls is billed: a
 * schedule is billed when it fires. The meter stands in for the expiry and purge schedulers,
 * fires nothing, and keeps which schedules are armed: those still armed when a unit of work is
 * over are the ones that will fire.
 */
import type { ExpiryScheduler } from '../../lambdas/core/ports.ts';

export class ScheduleMeter {
  apiCalls = 0;
  private readonly armed = new Set<string>();

  /** A scheduler of one kind (`expire` or `purge`), as deployed a schedule name prefix. */
  scheduler(kind: 'expire' | 'purge'): ExpiryScheduler {
    return {
      schedule: async (requestId) => {
        const name = `${kind}-${requestId}`;
        this.apiCalls += this.armed.has(name) ? 2 : 1;
        this.armed.add(name);
      },
      cancel: async (requestId) => {
        this.apiCalls += 1;
        this.armed.delete(`${kind}-${requestId}`);
      },
    };
  }

  get armedSchedules() {
    return this.armed.size;
  }

  reset() {
    this.apiCalls = 0;
  }
}
