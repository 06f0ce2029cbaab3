import { EventBridgeExpiryScheduler, type ScheduleKind } from '#adapters/eventbridge-scheduler.ts';
import type { ExpiryScheduler } from '#core/ports.ts';
import { required, type DeployedAdapters } from '../wiring.ts';
import { onFirstUse } from './on-first-use.ts';

/**
 * EventBridge Scheduler, configured from SCHEDULE_GROUP, SCHEDULER_ROLE_ARN and EXPIRY_FUNCTION_ARN
 * (or PURGE_FUNCTION_ARN for the purge kind). Built on first use: a function that arms or cancels
 * one kind only has that kind's variables (and rights), and a missing one fails only the
 * (tolerated) scheduling call.
 */
const eventBridgeSchedules = (kind: ScheduleKind): ExpiryScheduler => {
  const scheduler = onFirstUse(
    () =>
      new EventBridgeExpiryScheduler({
        groupName: required('SCHEDULE_GROUP'),
        targetArn: required(kind === 'purge' ? 'PURGE_FUNCTION_ARN' : 'EXPIRY_FUNCTION_ARN'),
        roleArn: required('SCHEDULER_ROLE_ARN'),
        kind,
      }),
  );
  return {
    schedule: async (requestId, atIso) => scheduler().schedule(requestId, atIso),
    cancel: async (requestId) => scheduler().cancel(requestId),
  };
};

/** The expiry schedules: the functions that create, submit, end or relink requests and shares (lib/api-functions.ts SCHEDULING_ROUTES). */
export const expirySchedules = (): Pick<DeployedAdapters, 'scheduler'> => ({ scheduler: eventBridgeSchedules('expire') });

/**
 * Expiry and grace-period purge schedules: whatever applies a ticket status (the status routes, the
 * ticket-check worker and the reconciliation), which ends requests and arms or cancels purges.
 */
export const expiryAndPurgeSchedules = (): Pick<DeployedAdapters, 'scheduler' | 'purgeScheduler'> => ({
  scheduler: eventBridgeSchedules('expire'),
  purgeScheduler: eventBridgeSchedules('purge'),
});
