/**
 * EventBridgeExpiryScheduler over HTTP against moto_server, through the real SDK client: the
 * expiry and purge schedules it arms, as EventBridge Scheduler accepts and stores them, read back
 * and cancelled, and what it refuses. The unit tests (test/unit/adapters) check the parameters
 * against a mock that accepts anything; here a service-like server parses and validates them.
 */
import { CreateScheduleGroupCommand, GetScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventBridgeExpiryScheduler } from '../../lambdas/adapters/eventbridge-scheduler.ts';
import { MOTO_ACCOUNT, MOTO_REGION, motoAvailable, useMotoServer } from '../support/moto-server.ts';

const haveMoto = motoAvailable();

describe.skipIf(!haveMoto)('the AWS adapters against moto_server', () => {
  const { client } = useMotoServer();

  describe('EventBridgeExpiryScheduler', () => {
    let scheduler: SchedulerClient;
    const GROUP = 'handoff-expiry';
    const ROLE_ARN = `arn:aws:iam::${MOTO_ACCOUNT}:role/handoff-scheduler`;
    const EXPIRE_ARN = `arn:aws:lambda:${MOTO_REGION}:${MOTO_ACCOUNT}:function:handoff-expire`;
    const PURGE_ARN = `arn:aws:lambda:${MOTO_REGION}:${MOTO_ACCOUNT}:function:handoff-purge`;
    const NOW = new Date('2030-03-04T05:06:07.000Z');
    const schedulerOf = (kind: 'expire' | 'purge', groupName = GROUP) =>
      new EventBridgeExpiryScheduler({ groupName, targetArn: kind === 'purge' ? PURGE_ARN : EXPIRE_ARN, roleArn: ROLE_ARN, kind }, scheduler, () => new Date(NOW));
    const get = (Name: string, GroupName = GROUP) => scheduler.send(new GetScheduleCommand({ Name, GroupName }));

    beforeAll(async () => {
      scheduler = client(SchedulerClient);
      // The stack creates the group (lib/expiry.ts); the adapter only ever names it.
      await scheduler.send(new CreateScheduleGroupCommand({ Name: GROUP }));
    });

    it('arms an expiry and a purge schedule: one-time at the due time rounded up to the whole minute (UTC), no flexible window, deleted after it runs, invoking its worker with {requestId}', async () => {
      const requestId = '01hrequestarm00000000000001';
      await schedulerOf('expire').schedule(requestId, '2030-03-11T12:00:00.250Z');
      await schedulerOf('purge').schedule(requestId, '2030-04-10T12:00:00.000Z');

      const expire = await get(`expire-${requestId}`);
      expect(expire).toMatchObject({
        Arn: `arn:aws:scheduler:${MOTO_REGION}:${MOTO_ACCOUNT}:schedule/${GROUP}/expire-${requestId}`,
        Name: `expire-${requestId}`,
        GroupName: GROUP,
        // Rounded up to the whole minute: Scheduler invokes anywhere in the minute named, never before the request is due.
        ScheduleExpression: 'at(2030-03-11T12:01:00)',
        ScheduleExpressionTimezone: 'UTC',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: { Arn: EXPIRE_ARN, RoleArn: ROLE_ARN, Input: JSON.stringify({ requestId }) },
      });
      expect(JSON.parse(expire.Target!.Input!)).toEqual({ requestId });

      const purge = await get(`purge-${requestId}`);
      expect(purge).toMatchObject({
        Name: `purge-${requestId}`,
        GroupName: GROUP,
        ScheduleExpression: 'at(2030-04-10T12:00:00)',
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: { Arn: PURGE_ARN, RoleArn: ROLE_ARN, Input: JSON.stringify({ requestId }) },
      });

      const { Schedules } = await scheduler.send(new ListSchedulesCommand({ GroupName: GROUP, NamePrefix: 'expire-01hrequestarm' }));
      expect(Schedules!.map((s) => s.Name)).toEqual([`expire-${requestId}`]);
    });

    it('arming again replaces the schedule (ConflictException, then UpdateSchedule), and a time already passed is moved to a minute from now (then to the whole minute)', async () => {
      const requestId = '01hrequestrearm000000000001';
      const expiry = schedulerOf('expire');
      await expiry.schedule(requestId, '2030-03-05T00:00:00.000Z');
      await expiry.schedule(requestId, '2030-03-09T00:00:00.000Z');
      expect(await get(`expire-${requestId}`)).toMatchObject({ ScheduleExpression: 'at(2030-03-09T00:00:00)', Target: { Arn: EXPIRE_ARN, Input: JSON.stringify({ requestId }) } });

      await expiry.schedule(requestId, '2030-03-04T05:00:00.000Z');
      expect((await get(`expire-${requestId}`)).ScheduleExpression).toBe('at(2030-03-04T05:08:00)');
      const { Schedules } = await scheduler.send(new ListSchedulesCommand({ GroupName: GROUP, NamePrefix: `expire-${requestId}` }));
      expect(Schedules).toHaveLength(1);
    });

    it('cancel deletes the schedule of its kind only; cancelling one that is gone or was never armed is not an error', async () => {
      const requestId = '01hrequestcancel00000000001';
      await schedulerOf('expire').schedule(requestId, '2030-03-11T12:00:00.000Z');
      await schedulerOf('purge').schedule(requestId, '2030-04-10T12:00:00.000Z');

      await schedulerOf('expire').cancel(requestId);
      await expect(get(`expire-${requestId}`)).rejects.toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 404 } });
      expect((await get(`purge-${requestId}`)).Name).toBe(`purge-${requestId}`);

      // Already deleted (as after firing, ActionAfterCompletion DELETE), and never armed: both are what Scheduler answers 404 to.
      await expect(schedulerOf('expire').cancel(requestId)).resolves.toBeUndefined();
      await expect(schedulerOf('expire').cancel('01hrequestnever000000000001')).resolves.toBeUndefined();

      await schedulerOf('purge').cancel(requestId);
      await expect(get(`purge-${requestId}`)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    });

    it('passes on a failure to arm in a schedule group that does not exist; cancelling there finds nothing to delete', async () => {
      const requestId = '01hrequestnogroup0000000001';
      // AWS answers ResourceNotFoundException; moto 5.2.1 fails with an HTTP 500 (a KeyError on the group). Either way it reaches the caller.
      await expect(schedulerOf('expire', 'no-such-group').schedule(requestId, '2030-03-11T12:00:00.000Z')).rejects.toThrow();
      // Scheduler's 404 for a missing group has the same name as for a missing schedule, so the adapter cannot tell them apart.
      await expect(get(`expire-${requestId}`, 'no-such-group')).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Schedule group no-such-group does not exist.' });
      await expect(schedulerOf('expire', 'no-such-group').cancel(requestId)).resolves.toBeUndefined();
    });
  });
});
