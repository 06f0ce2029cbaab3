/**
 * The AWS adapters over HTTP against moto_server, through the real SDK clients: what SQS,
 * EventBridge Scheduler, SESv2, SNS and KMS accept, store and refuse of what the adapters send.
 * The unit tests (test/unit/adapters) check the parameters against a mock that accepts anything;
 * here a service-like server parses and validates them. moto's record of what it accepted (the
 * emails and text messages it "sent", the messages it queued with their delay) is read from its
 * `/moto-api/data.json`.
 */
import { createHmac } from 'node:crypto';
import { CreateAliasCommand, CreateKeyCommand, DecryptCommand, KMSClient, VerifyMacCommand } from '@aws-sdk/client-kms';
import { CreateScheduleGroupCommand, GetScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBridgeExpiryScheduler } from '../../lambdas/adapters/eventbridge-scheduler.ts';
import { KmsCodeKey } from '../../lambdas/adapters/kms-code-key.ts';
import { KmsSealer } from '../../lambdas/adapters/kms-sealer.ts';
import { SesEmailSender } from '../../lambdas/adapters/ses-email.ts';
import { SnsSmsSender } from '../../lambdas/adapters/sns-sms.ts';
import { SQS_MAX_DELAY_SECONDS, SqsDeliveryQueue } from '../../lambdas/adapters/sqs-delivery-queue.ts';
import { SqsTicketCheckQueue } from '../../lambdas/adapters/sqs-ticket-checks.ts';
import type { DeliveryLane } from '../../lambdas/core/delivery-lanes.ts';
import type { Notifier } from '../../lambdas/core/ports.ts';
import type { Delivery } from '../../lambdas/store/deliveries.ts';
import { deliverOne, MAX_QUEUE_DELAY_SECONDS, type DeliverDeps } from '../../lambdas/workers/deliver.ts';
import { loopbackOnly, MOTO_ACCOUNT, MOTO_REGION, motoAvailable, motoClientConfig, motoModels, startMotoServer, type MotoServer } from '../support/moto-server.ts';
import { quietLogger } from '../support/webhooks.ts';

const haveMoto = motoAvailable();

/** What moto keeps of a queued SQS message (its times in epoch milliseconds). */
interface MotoSqsMessage {
  id: string;
  body: string;
  group_id: string | null;
  sent_timestamp: number | null;
  delayed_until: number;
}

describe.skipIf(!haveMoto)('the AWS adapters against moto_server', () => {
  let moto: MotoServer;
  const client = <C>(Client: new (config: ReturnType<typeof motoClientConfig>) => C): C => loopbackOnly(new Client(motoClientConfig(moto.endpoint)));

  beforeAll(async () => {
    moto = await startMotoServer();
  });
  afterAll(async () => {
    await moto?.stop();
  });

  it('never reaches AWS: a client not aimed at moto_server is refused before it sends', async () => {
    const unaimed = loopbackOnly(new SQSClient({ region: MOTO_REGION, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' }, maxAttempts: 1 }));
    await expect(unaimed.send(new GetQueueAttributesCommand({ QueueUrl: `https://sqs.${MOTO_REGION}.amazonaws.com/${MOTO_ACCOUNT}/q` }))).rejects.toThrow(
      `refused a request to sqs.${MOTO_REGION}.amazonaws.com`,
    );
  });

  describe('SqsDeliveryQueue', () => {
    let sqs: SQSClient;
    let queueNumber = 0;
    /** A fresh pair of standard queues, as lib/webhooks.ts deploys them (not FIFO: fair queues). */
    const lanes = async () => {
      queueNumber += 1;
      const fast = (await sqs.send(new CreateQueueCommand({ QueueName: `handoff-deliveries-${queueNumber}` }))).QueueUrl!;
      const slow = (await sqs.send(new CreateQueueCommand({ QueueName: `handoff-slow-deliveries-${queueNumber}` }))).QueueUrl!;
      return { fast, slow } satisfies Record<DeliveryLane, string>;
    };
    const counts = async (queueUrl: string) => {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return { visible: Number(Attributes!.ApproximateNumberOfMessages), delayed: Number(Attributes!.ApproximateNumberOfMessagesDelayed), inFlight: Number(Attributes!.ApproximateNumberOfMessagesNotVisible) };
    };
    const receiveAll = async (queueUrl: string): Promise<Message[]> =>
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }))).Messages ?? [];
    /** The delay SQS applied to the message with this body: moto keeps when it was sent and until when it is delayed. */
    const storedDelaySeconds = async (body: string) => {
      const stored = (await motoModels<MotoSqsMessage>(moto.endpoint, 'sqs', 'Message')).filter((m) => m.body === body && m.sent_timestamp !== null);
      const ids = new Set(stored.map((m) => m.id));
      expect(ids.size, `one queued message with body ${body}`).toBe(1);
      const [message] = stored;
      return { delaySeconds: message.delayed_until === 0 ? 0 : Math.round((message.delayed_until - message.sent_timestamp!) / 1000), group: message.group_id };
    };
    const bodyOf = (deliveryId: string, lane: DeliveryLane) => JSON.stringify({ deliveryId, lane });

    beforeAll(() => {
      sqs = client(SQSClient);
    });

    it('queues {deliveryId, lane} with the delay asked for: a message due now can be received, delayed ones stay hidden until due', async () => {
      const urls = await lanes();
      const queue = new SqsDeliveryQueue(urls, sqs);
      await queue.send('01hdelivery0000000000000000', 0, { lane: 'fast', group: 'wh_now' });
      await queue.send('01hdelivery0000000000000030', 30, { lane: 'fast', group: 'wh_later' });

      expect(await counts(urls.fast)).toEqual({ visible: 1, delayed: 1, inFlight: 0 });
      const received = await receiveAll(urls.fast);
      expect(received).toHaveLength(1);
      expect(received[0].Body).toBe(bodyOf('01hdelivery0000000000000000', 'fast'));
      expect(JSON.parse(received[0].Body!)).toEqual({ deliveryId: '01hdelivery0000000000000000', lane: 'fast' });
      expect(received[0].Attributes).toMatchObject({ MessageGroupId: 'wh_now', ApproximateReceiveCount: '1' });
      // The delayed one is still hidden, and SQS holds it for exactly the 30 s asked.
      expect(await receiveAll(urls.fast)).toEqual([]);
      expect(await storedDelaySeconds(bodyOf('01hdelivery0000000000000030', 'fast'))).toEqual({ delaySeconds: 30, group: 'wh_later' });
      expect(await storedDelaySeconds(bodyOf('01hdelivery0000000000000000', 'fast'))).toEqual({ delaySeconds: 0, group: 'wh_now' });
      expect(await counts(urls.slow)).toEqual({ visible: 0, delayed: 0, inFlight: 0 });
    });

    it("caps a wait past SQS's 15 minutes at 900 s, which SQS accepts where it refuses the uncapped delay", async () => {
      const urls = await lanes();
      // What SQS answers to a DelaySeconds over its limit: the reason for the cap and the hops.
      await expect(sqs.send(new SendMessageCommand({ QueueUrl: urls.fast, MessageBody: 'too far ahead', DelaySeconds: 5_000 }))).rejects.toMatchObject({
        name: 'InvalidParameterValue',
        message: 'Value 5000 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.',
        $metadata: { httpStatusCode: 400 },
      });

      const queue = new SqsDeliveryQueue(urls, sqs);
      await queue.send('01hdelivery0000000000005000', 5_000, { lane: 'fast', group: 'wh_1' });
      await queue.send('01hdelivery0000000000000901', 901, { lane: 'fast', group: 'wh_1' });
      await queue.send('01hdelivery000000000000fraction', 1.2, { lane: 'fast', group: 'wh_1' });
      await queue.send('01hdelivery000000000000negative', -5, { lane: 'fast', group: 'wh_1' });

      expect(SQS_MAX_DELAY_SECONDS).toBe(900);
      expect(await storedDelaySeconds(bodyOf('01hdelivery0000000000005000', 'fast'))).toEqual({ delaySeconds: 900, group: 'wh_1' });
      expect(await storedDelaySeconds(bodyOf('01hdelivery0000000000000901', 'fast'))).toEqual({ delaySeconds: 900, group: 'wh_1' });
      expect(await storedDelaySeconds(bodyOf('01hdelivery000000000000fraction', 'fast'))).toEqual({ delaySeconds: 2, group: 'wh_1' });
      expect(await storedDelaySeconds(bodyOf('01hdelivery000000000000negative', 'fast'))).toEqual({ delaySeconds: 0, group: 'wh_1' });
    });

    it("sends to the route's lane, and the fast lane without a route (then with no message group)", async () => {
      const urls = await lanes();
      const queue = new SqsDeliveryQueue(urls, sqs);
      await queue.send('01hdeliveryslow000000000000', 0, { lane: 'slow', group: 'wh_slow' });
      await queue.send('01hdeliverynoroute000000000', 0);

      const slow = await receiveAll(urls.slow);
      expect(slow.map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([[bodyOf('01hdeliveryslow000000000000', 'slow'), 'wh_slow']]);
      const fast = await receiveAll(urls.fast);
      expect(fast.map((m) => m.Body)).toEqual([bodyOf('01hdeliverynoroute000000000', 'fast')]);
      expect(fast[0].Attributes).not.toHaveProperty('MessageGroupId');
    });

    it('passes the subscription as MessageGroupId on a standard queue, which the queue keeps and returns (SQS fair queues)', async () => {
      const urls = await lanes();
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: urls.fast, AttributeNames: ['All'] }));
      expect(Attributes).not.toHaveProperty('FifoQueue');
      const queue = new SqsDeliveryQueue(urls, sqs);
      await queue.send('01hdeliverygroupa0000000001', 0, { lane: 'fast', group: 'wh_a' });
      await queue.send('01hdeliverygroupa0000000002', 0, { lane: 'fast', group: 'wh_a' });
      await queue.send('01hdeliverygroupb0000000001', 0, { lane: 'fast', group: 'wh_b' });
      // A standard queue does not hold a group's second message back while its first is in flight, as a FIFO queue would.
      const received = await receiveAll(urls.fast);
      expect(received.map((m) => [JSON.parse(m.Body!).deliveryId, m.Attributes?.MessageGroupId]).sort()).toEqual([
        ['01hdeliverygroupa0000000001', 'wh_a'],
        ['01hdeliverygroupa0000000002', 'wh_a'],
        ['01hdeliverygroupb0000000001', 'wh_b'],
      ]);
    });

    it('passes a failure on: a queue that does not exist', async () => {
      const urls = await lanes();
      const queue = new SqsDeliveryQueue({ ...urls, slow: `${moto.endpoint}/${MOTO_ACCOUNT}/no-such-queue` }, sqs);
      await expect(queue.send('01hdeliverymissing000000000', 0, { lane: 'slow', group: 'wh_1' })).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    });

    it('carries a delivery due past 15 minutes in hops: the worker re-enqueues it 900 s ahead in its lane, grouped by its subscription', async () => {
      const urls = await lanes();
      const queue = new SqsDeliveryQueue(urls, sqs);
      const now = new Date();
      const pending = (id: string, dueInSeconds: number): Delivery => ({
        id,
        webhookId: 'wh_hop',
        orgId: 'org_1',
        clientId: null,
        eventSeq: 1,
        eventType: 'request.completed',
        webhookMessageId: `msg_${id}`,
        attempts: 3,
        nextAttemptAt: new Date(now.getTime() + dueInSeconds * 1000).toISOString(),
        status: 'pending',
        createdAt: now.toISOString(),
        lastAttemptAt: now.toISOString(),
        lastStatus: 503,
        lastError: null,
      });
      const deliveries = new Map([pending('01hdeliveryhopfar0000000000', 5_000), pending('01hdeliveryhopnear000000000', 30)].map((d) => [d.id, d]));
      const notForAHop = () => {
        throw new Error('a hop neither opens secrets nor posts');
      };
      const deps = {
        clock: { now: () => now },
        logger: quietLogger,
        deliveries: { get: async (id: string) => deliveries.get(id) ?? null } as unknown as DeliverDeps['deliveries'],
        queue,
        http: { post: notForAHop },
        sealer: { open: notForAHop },
      } satisfies DeliverDeps;

      expect(await deliverOne(deps, '01hdeliveryhopfar0000000000', 'slow')).toBe('hop');
      expect(await deliverOne(deps, '01hdeliveryhopnear000000000', 'fast')).toBe('hop');

      expect(MAX_QUEUE_DELAY_SECONDS).toBe(SQS_MAX_DELAY_SECONDS);
      expect(await storedDelaySeconds(bodyOf('01hdeliveryhopfar0000000000', 'slow'))).toEqual({ delaySeconds: 900, group: 'wh_hop' });
      expect(await storedDelaySeconds(bodyOf('01hdeliveryhopnear000000000', 'fast'))).toEqual({ delaySeconds: 30, group: 'wh_hop' });
      expect(await counts(urls.slow)).toEqual({ visible: 0, delayed: 1, inFlight: 0 });
      expect(await counts(urls.fast)).toEqual({ visible: 0, delayed: 1, inFlight: 0 });
    });
  });

  describe('SqsTicketCheckQueue', () => {
    it('queues the check with its notBefore: due now is received at once, a 40 s Retry-After stays hidden, an hour is capped at 900 s', async () => {
      const sqs = client(SQSClient);
      const url = (await sqs.send(new CreateQueueCommand({ QueueName: 'handoff-ticket-checks' }))).QueueUrl!;
      const now = Date.parse('2026-11-26T10:00:00Z');
      const queue = new SqsTicketCheckQueue(url, () => now, sqs);
      const check = (externalId: string) => ({ orgId: '01horg0000000000000000001a', integrationId: '01hintegration000000000001', externalId, attempt: 1 });
      await queue.enqueue(check('1'), 0);
      await queue.enqueue(check('2'), 40);
      await queue.enqueue(check('3'), 3_600);
      const received = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }))).Messages ?? [];
      expect(received.map((message) => JSON.parse(message.Body!))).toEqual([{ ...check('1'), notBefore: now }]);
      const stored = await motoModels<MotoSqsMessage>(moto.endpoint, 'sqs', 'Message');
      const delayOf = (externalId: string) => {
        // moto keeps every queue's messages, the other tests' plain-text bodies among them.
        const message = stored.find((m) => m.sent_timestamp !== null && m.body.startsWith('{') && JSON.parse(m.body).externalId === externalId)!;
        return { delaySeconds: Math.round((message.delayed_until - message.sent_timestamp!) / 1000), notBefore: JSON.parse(message.body).notBefore };
      };
      expect(delayOf('2')).toEqual({ delaySeconds: 40, notBefore: now + 40_000 });
      expect(delayOf('3')).toEqual({ delaySeconds: 900, notBefore: now + 3_600_000 });
    });
  });

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

  describe('SesEmailSender and SnsSmsSender', () => {
    let ses: SESv2Client;
    let sns: SNSClient;
    interface MotoEmail {
      id: string;
      source: string;
      subject: string;
      body: string;
      destinations: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
    }
    interface MotoSms {
      message_id: string;
      phone_number: string;
      message: string;
    }
    /** Used through the Notifier port, as the use cases see it. */
    const notifier = (from: string): Notifier => {
      const email = new SesEmailSender(from, ses);
      const sms = new SnsSmsSender(sns);
      return { sendEmail: (message) => email.sendEmail(message), sendSms: (message) => sms.sendSms(message) };
    };

    beforeAll(() => {
      ses = client(SESv2Client);
      sns = client(SNSClient);
    });

    it('email: SES refuses a sender that is not a verified identity, and the refusal reaches the caller; nothing is sent', async () => {
      const from = 'Credential Handoff <unverified@handoff.example.net>';
      const subject = 'Your sign-in link (unverified sender)';
      await expect(notifier(from).sendEmail({ id: 'dlv_1', purpose: 'sign_in', to: 'member@example.com', subject, text: 'Sign in at https://example.net/app' })).rejects.toMatchObject({
        name: 'MessageRejected',
        message: `Email address not verified ${from}`,
        $metadata: { httpStatusCode: 400 },
      });
      expect((await motoModels<MotoEmail>(moto.endpoint, 'ses', 'Message')).filter((m) => m.subject === subject)).toEqual([]);
    });

    it('email: once the sender is a verified identity, the message is sent with its From, To, subject and text intact (UTF-8)', async () => {
      const address = 'noreply@handoff.example.net';
      const from = `Credential Handoff <${address}>`;
      await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: address }));
      const subject = 'Credential request for ticket Ünïcode-42 – £5 ✓';
      const text = 'Acme Café asks you to send a credential securely.\nOpen: https://example.net/r/abc#k=xyz\n— 🔐';
      await notifier(from).sendEmail({ id: 'dlv_2', purpose: 'request_link', to: 'subject@example.com', subject, text });

      const sent = (await motoModels<MotoEmail>(moto.endpoint, 'ses', 'Message')).filter((m) => m.subject === subject);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ source: from, subject, body: text, destinations: { ToAddresses: ['subject@example.com'] } });
      expect(sent[0].destinations).not.toHaveProperty('CcAddresses');
      expect(sent[0].destinations).not.toHaveProperty('BccAddresses');
    });

    it('SMS: publishes straight to the E.164 number (no topic); SNS keeps the number and the text', async () => {
      const text = 'Acme: send a credential securely at https://example.net/r/abc#k=xyz';
      await notifier('noreply@handoff.example.net').sendSms({ id: 'dlv_3', purpose: 'request_link', to: '+447700900123', text });
      const sent = (await motoModels<MotoSms>(moto.endpoint, 'sns', 'SMS')).filter((m) => m.message === text);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ phone_number: '+447700900123', message: text });
      expect(sent[0].message_id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('SMS: a number that is not E.164 is refused by SNS, and the refusal reaches the caller', async () => {
      await expect(notifier('noreply@handoff.example.net').sendSms({ id: 'dlv_4', purpose: 'request_link', to: '07700 900123', text: 'not sent' })).rejects.toMatchObject({
        name: 'InvalidParameterException',
        message: 'Phone number does not meet the E164 format',
        $metadata: { httpStatusCode: 400 },
      });
      expect((await motoModels<MotoSms>(moto.endpoint, 'sns', 'SMS')).filter((m) => m.message === 'not sent')).toEqual([]);
    });
  });

  describe('KmsSealer', () => {
    let kms: KMSClient;
    let keyArn: string;
    let otherKeyArn: string;
    const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const CONTEXT = { orgId: 'org_1', integrationId: 'int_1', purpose: 'webhook-signing' };

    beforeAll(async () => {
      kms = client(KMSClient);
      // As lib/sealing.ts makes it: a symmetric encryption key, named to the functions by its ARN.
      keyArn = (await kms.send(new CreateKeyCommand({ KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' }))).KeyMetadata!.Arn!;
      otherKeyArn = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.Arn!;
    });

    it('seals under a fresh KMS data key and opens again, in another process (no cached key)', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      expect(sealed).toMatchObject({ v: 1, alg: 'A256GCM', keyId: keyArn });
      expect(Buffer.from(sealed.wrappedKey!, 'base64').length).toBeGreaterThan(32);
      expect(JSON.stringify(sealed)).not.toContain(SECRET);
      expect(await new KmsSealer({ keyId: keyArn }, kms).open(sealed, CONTEXT)).toBe(SECRET);

      // Every seal has a data key of its own.
      const again = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      expect(again.wrappedKey).not.toBe(sealed.wrappedKey);
      expect(again.ciphertext).not.toBe(sealed.ciphertext);

      // The wrapped key is KMS's: a 256-bit key it unwraps under the same encryption context only.
      const { Plaintext, KeyId } = await kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.wrappedKey!, 'base64'), EncryptionContext: CONTEXT }));
      expect(Plaintext).toHaveLength(32);
      expect(KeyId).toBe(keyArn);
      await expect(kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.wrappedKey!, 'base64') }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    });

    it('refuses to open under another context: KMS refuses to unwrap, and a key cached by an earlier open still fails the AES-GCM tag', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      const elsewhere = { ...CONTEXT, integrationId: 'int_2' };
      await expect(new KmsSealer({ keyId: keyArn }, kms).open(sealed, elsewhere)).rejects.toMatchObject({ name: 'InvalidCiphertextException', $metadata: { httpStatusCode: 400 } });
      await expect(new KmsSealer({ keyId: keyArn }, kms).open(sealed, { orgId: 'org_1', integrationId: 'int_1' })).rejects.toMatchObject({ name: 'InvalidCiphertextException' });

      const warm = new KmsSealer({ keyId: keyArn }, kms);
      expect(await warm.open(sealed, CONTEXT)).toBe(SECRET);
      await expect(warm.open(sealed, elsewhere)).rejects.toThrow('sealed secret did not open: another key, another context, or altered');
    });

    it('a sealer configured with another key refuses a secret sealed under the first (Decrypt names its key)', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      await expect(new KmsSealer({ keyId: otherKeyArn }, kms).open(sealed, CONTEXT)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });

    it('accepts the key by alias as well as by ARN, and records the key ARN in the sealed value', async () => {
      const alias = 'alias/handoff-secrets';
      await kms.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyArn }));
      const sealed = await new KmsSealer({ keyId: alias }, kms).seal(SECRET, CONTEXT);
      expect(sealed.keyId).toBe(keyArn);
      expect(await new KmsSealer({ keyId: alias }, kms).open(sealed, CONTEXT)).toBe(SECRET);
      expect(await new KmsSealer({ keyId: keyArn }, kms).open(sealed, CONTEXT)).toBe(SECRET);
    });

    it('refuses a wrapped key that was altered', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      const wrapped = Buffer.from(sealed.wrappedKey!, 'base64');
      wrapped[wrapped.length - 1] ^= 0x01;
      await expect(new KmsSealer({ keyId: keyArn }, kms).open({ ...sealed, wrappedKey: wrapped.toString('base64') }, CONTEXT)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    });
  });

  describe('KmsCodeKey', () => {
    let kms: KMSClient;
    let hmacKeyArn: string;
    let otherHmacKeyArn: string;

    beforeAll(async () => {
      kms = client(KMSClient);
      // As lib/code-key.ts makes it.
      const hmacKey = () => kms.send(new CreateKeyCommand({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' }));
      hmacKeyArn = (await hmacKey()).KeyMetadata!.Arn!;
      otherHmacKeyArn = (await hmacKey()).KeyMetadata!.Arn!;
    });

    it('hashes a code with GenerateMac (HMAC-SHA-256) to 64 lowercase hex digits that KMS verifies for that code only', async () => {
      const codeKey = new KmsCodeKey(hmacKeyArn, kms);
      const mac = await codeKey.mac('123456');
      expect(mac).toMatch(/^[0-9a-f]{64}$/);
      expect(await codeKey.mac('123456')).toBe(mac);
      expect(await codeKey.mac('123457')).not.toBe(mac);

      const verify = (message: string) =>
        kms.send(new VerifyMacCommand({ KeyId: hmacKeyArn, MacAlgorithm: 'HMAC_SHA_256', Message: Buffer.from(message, 'utf8'), Mac: Buffer.from(mac, 'hex') }));
      expect(await verify('123456')).toMatchObject({ MacValid: true, MacAlgorithm: 'HMAC_SHA_256' });
      await expect(verify('123457')).rejects.toMatchObject({ name: 'KMSInvalidMacException' });
      // The key never leaves KMS: without it the hash is not a plain or keyless one.
      expect(mac).not.toBe(createHmac('sha256', '').update('123456').digest('hex'));
    });

    it('hashes UTF-8 messages, and another key gives another hash', async () => {
      const message = 'email_code:01hrequest000000000000001:654321:Zoë';
      const mac = await new KmsCodeKey(hmacKeyArn, kms).mac(message);
      await expect(
        kms.send(new VerifyMacCommand({ KeyId: hmacKeyArn, MacAlgorithm: 'HMAC_SHA_256', Message: Buffer.from(message, 'utf8'), Mac: Buffer.from(mac, 'hex') })),
      ).resolves.toMatchObject({ MacValid: true });
      expect(await new KmsCodeKey(otherHmacKeyArn, kms).mac(message)).not.toBe(mac);
    });

    it('refuses a key that is not an HMAC key (a misconfigured CODE_HASH_KEY_ID)', async () => {
      const encryptionKeyArn = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.Arn!;
      await expect(new KmsCodeKey(encryptionKeyArn, kms).mac('123456')).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
    });
  });
});
