import { notWired, type DeployedAdapters } from '../wiring.ts';

/**
 * For the workers that complete a request when its ticket's grace period ends (the purge worker
 * and the sweep). They have no Scheduler client and no Scheduler rights, so the request's
 * `expire-<id>` schedule is left to fire once at its time, when the expiry worker finds the
 * request ended and does nothing (core/expiry-schedule.ts). Cancelling it would put the Scheduler
 * client and DeleteSchedule in two more functions to save one billed invocation. Arming a
 * schedule is never theirs to do, and fails.
 */
export const expiryLeftToFire = (): Pick<DeployedAdapters, 'scheduler'> => ({
  scheduler: {
    schedule: notWired('arm schedules'),
    cancel: async () => undefined,
  },
});
