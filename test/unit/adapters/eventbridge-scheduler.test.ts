import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { atExpression, EventBridgeExpiryScheduler } from '../../../lambdas/adapters/eventbridge-scheduler.ts';
import type { ExpiryScheduler } from '../../../lambdas/core/ports.ts';

const scheduler = mockClient(SchedulerClient);
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' };
const CONFIG = {
  groupName: 'handoff-expiry',
  targetArn: 'arn:aws:lambda:eu-west-2:111122223333:function:handoff-expire',
  roleArn: 'arn:aws:iam::111122223333:role/handoff-scheduler',
};
const ID = '01hrequest0000000000000001';
const NOW = new Date('2025-03-04T05:06:07.000Z');
/** Used through the ExpiryScheduler port, as the use cases see it. */
const port = (): ExpiryScheduler =>
  new EventBridgeExpiryScheduler(CONFIG, new SchedulerClient({ region: 'eu-west-2', credentials }), () => new Date(NOW));

const expectedInput = (expression: string) => ({
  Name: `expire-${ID}`,
  GroupName: 'handoff-expiry',
  ScheduleExpression: expression,
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'DELETE',
  State: 'ENABLED',
  Target: { Arn: CONFIG.targetArn, RoleArn: CONFIG.roleArn, Input: JSON.stringify({ requestId: ID }) },
});

beforeEach(() => scheduler.reset());
afterAll(() => scheduler.restore());

describe('schedule', () => {
  it('creates one one-time schedule named after the request, in the group, invoking the expiry function', async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:eu-west-2:111122223333:schedule/handoff-expiry/x' });
    await port().schedule(ID, '2025-03-11T12:00:00.000Z');
    expect(scheduler.calls()).toHaveLength(1);
    const [call] = scheduler.commandCalls(CreateScheduleCommand);
    expect(call.args[0].input).toEqual(expectedInput('at(2025-03-11T12:00:00)'));
    expect(JSON.parse(call.args[0].input.Target!.Input!)).toEqual({ requestId: ID });
  });

  it('rounds any part of a minute up to the next minute, so the trigger never comes early', async () => {
    scheduler.on(CreateScheduleCommand).resolves({});
    await port().schedule(ID, '2025-03-11T12:00:00.001Z');
    expect(scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input.ScheduleExpression).toBe('at(2025-03-11T12:01:00)');
  });

  it('replaces the schedule when the request already has one (ConflictException → UpdateSchedule with the same settings)', async () => {
    scheduler
      .on(CreateScheduleCommand)
      .rejects(new ConflictException({ message: 'Schedule expire-x already exists.', Message: 'Schedule expire-x already exists.', $metadata: {} }))
      .on(UpdateScheduleCommand)
      .resolves({});
    await port().schedule(ID, '2025-03-12T08:30:15.000Z');
    expect(scheduler.calls()).toHaveLength(2);
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    const [update] = scheduler.commandCalls(UpdateScheduleCommand);
    expect(update.args[0].input).toEqual(expectedInput('at(2025-03-12T08:31:00)'));
  });

  it('passes any other error on (the caller tolerates it; the sweep covers the request)', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ValidationException({ message: 'bad', Message: 'bad', $metadata: {} }));
    await expect(port().schedule(ID, '2025-03-11T12:00:00.000Z')).rejects.toBeInstanceOf(ValidationException);
    expect(scheduler.commandCalls(UpdateScheduleCommand)).toHaveLength(0);
  });

  it('moves a due time already passed to a minute from now (then to the next whole minute)', async () => {
    scheduler.on(CreateScheduleCommand).resolves({});
    await port().schedule(ID, '2025-03-01T00:00:00.000Z');
    expect(scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input.ScheduleExpression).toBe('at(2025-03-04T05:08:00)');
  });

  it('refuses a time that is not a date-time without calling Scheduler', async () => {
    await expect(port().schedule(ID, 'tomorrow')).rejects.toThrow(/not a date-time/);
    expect(scheduler.calls()).toHaveLength(0);
  });
});

describe('cancel', () => {
  it('deletes the request\'s schedule from the group', async () => {
    scheduler.on(DeleteScheduleCommand).resolves({});
    await port().cancel(ID);
    expect(scheduler.calls()).toHaveLength(1);
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0].args[0].input).toEqual({ Name: `expire-${ID}`, GroupName: 'handoff-expiry' });
  });

  it('treats a schedule that is already gone as cancelled', async () => {
    scheduler.on(DeleteScheduleCommand).rejects(new ResourceNotFoundException({ message: 'Schedule not found.', Message: 'Schedule not found.', $metadata: {} }));
    await expect(port().cancel(ID)).resolves.toBeUndefined();
  });

  it('passes any other error on', async () => {
    scheduler.on(DeleteScheduleCommand).rejects(new ValidationException({ message: 'bad', Message: 'bad', $metadata: {} }));
    await expect(port().cancel(ID)).rejects.toBeInstanceOf(ValidationException);
  });
});

describe('atExpression', () => {
  it('writes UTC without seconds or milliseconds, rounding up to the whole minute', () => {
    const now = new Date('2025-01-01T00:00:00.000Z');
    expect(atExpression('2025-06-30T23:59:00.000Z', now)).toBe('at(2025-06-30T23:59:00)');
    expect(atExpression('2025-06-30T23:59:59.000Z', now)).toBe('at(2025-07-01T00:00:00)');
    expect(atExpression('2025-06-30T23:59:00.001Z', now)).toBe('at(2025-07-01T00:00:00)');
    expect(atExpression('2025-06-30T23:59:59.999+02:00', now)).toBe('at(2025-06-30T22:00:00)');
  });

  /**
   * EventBridge Scheduler User Guide, "Schedule types": "All schedule types on EventBridge
   * Scheduler invoke their targets with 60 second precision. This means that if you set your
   * schedule to run at 1:00, it will invoke the target API between 1:00:00 and 1:00:59". The
   * window an at expression opens is the whole minute it names, whatever its seconds say.
   */
  const invocationWindow = (expression: string) => {
    const match = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}):(\d{2})\)$/.exec(expression);
    if (!match) throw new Error(`not an at expression: ${expression}`);
    const minute = Date.parse(`${match[1]}:00Z`);
    return { earliest: minute, latest: minute + 59_000 };
  };

  it('opens an invocation window that never starts before the due time, and ends within two minutes of it', () => {
    const now = new Date('2025-01-01T00:00:00.000Z');
    for (const due of ['2025-03-11T12:00:00.000Z', '2025-03-11T12:00:00.001Z', '2025-03-11T12:00:30.000Z', '2025-03-11T12:00:59.999Z', '2025-12-31T23:59:01.000Z']) {
      const { earliest, latest } = invocationWindow(atExpression(due, now));
      expect(earliest, due).toBeGreaterThanOrEqual(Date.parse(due));
      expect(latest - Date.parse(due), due).toBeLessThan(120_000);
    }
  });
});
