import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import type { ExpiryScheduler } from '#core/ports.ts';

export interface EventBridgeSchedulerConfig {
  /** The schedule group every expiry schedule lives in (SCHEDULE_GROUP). */
  groupName: string;
  /** The expiry worker's function ARN (EXPIRY_FUNCTION_ARN). */
  targetArn: string;
  /** The role Scheduler assumes to invoke it (SCHEDULER_ROLE_ARN). */
  roleArn: string;
  /** Which kind of schedule: names start with `expire-` (default) or `purge-`. */
  kind?: ScheduleKind;
}

export type ScheduleKind = 'expire' | 'purge';

/** A request's schedule name: unique per request and kind, so arming twice replaces instead of duplicating. */
export const scheduleName = (kind: ScheduleKind, requestId: string) => `${kind}-${requestId}`;
export const expiryScheduleName = (requestId: string) => scheduleName('expire', requestId);
export const purgeScheduleName = (requestId: string) => scheduleName('purge', requestId);

/**
 * Scheduler invokes with 60-second precision: a schedule set to run at 1:00 invokes its target
 * between 1:00:00 and 1:00:59 (EventBridge Scheduler User Guide, "Schedule types"), so the seconds
 * of an at expression do not hold it back within its minute. The time is rounded up to the next
 * whole minute, so that the earliest invocation the minute allows is never before the request is
 * due (an early trigger finds nothing to do, and nothing would re-arm it: the schedule deletes
 * itself once it has run). A time already passed, or too close to arm reliably, is moved to a
 * minute from now: Scheduler refuses one-time schedules in the past.
 */
export const atExpression = (atIso: string, now: Date): string => {
  const due = Date.parse(atIso);
  if (Number.isNaN(due)) throw new Error(`not a date-time: ${atIso}`);
  const fireAt = Math.max(due, now.getTime() + MIN_LEAD_MS);
  return `at(${new Date(Math.ceil(fireAt / SCHEDULER_PRECISION_MS) * SCHEDULER_PRECISION_MS).toISOString().slice(0, 19)})`;
};
const MIN_LEAD_MS = 60_000;
/** The precision Scheduler invokes with: anywhere in the minute its expression names. */
const SCHEDULER_PRECISION_MS = 60_000;

const isNamed = (error: unknown, name: string) => (error as { name?: unknown } | null)?.name === name;

/**
 * One EventBridge Scheduler one-time schedule per request and kind, `expire-<requestId>` or
 * `purge-<requestId>` in the service's group, invoking the expiry or purge worker with
 * `{"requestId": ...}` and deleting itself once it has run.
 */
export class EventBridgeExpiryScheduler implements ExpiryScheduler {
  constructor(
    private readonly config: EventBridgeSchedulerConfig,
    private readonly client = new SchedulerClient({}),
    private readonly now: () => Date = () => new Date(),
  ) {}

  private nameOf(requestId: string) {
    return scheduleName(this.config.kind ?? 'expire', requestId);
  }

  async schedule(requestId: string, atIso: string) {
    const input: CreateScheduleCommandInput = {
      Name: this.nameOf(requestId),
      GroupName: this.config.groupName,
      ScheduleExpression: atExpression(atIso, this.now()),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: {
        Arn: this.config.targetArn,
        RoleArn: this.config.roleArn,
        Input: JSON.stringify({ requestId }),
      },
    };
    try {
      await this.client.send(new CreateScheduleCommand(input));
    } catch (error) {
      if (!isNamed(error, 'ConflictException')) throw error;
      // The request already has a schedule (a submission moves the link expiry to the record's): replace it.
      await this.client.send(new UpdateScheduleCommand(input));
    }
  }

  async cancel(requestId: string) {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: this.nameOf(requestId), GroupName: this.config.groupName }));
    } catch (error) {
      // Never made, already fired (it deletes itself after completion), or cancelled before.
      if (!isNamed(error, 'ResourceNotFoundException')) throw error;
    }
  }
}
