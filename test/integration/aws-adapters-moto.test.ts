/**
 * The SQS adapters over HTTP against moto_server, through the real SDK client: what SQS accepts,
 * stores and refuses of what the delivery queue (delays and the 15-minute hop, the fast and slow
 * lanes) and the ticket-check queue send; and that no client in these tests can reach AWS. The
 * unit tests (test/unit/adapters) check the parameters against a mock that accepts anything; here
 * a service-like server parses and validates them. moto's record of the messages it queued with
 * their delay is read from its `/moto-api/data.json`.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SQS_MAX_DELAY_SECONDS, SqsDeliveryQueue } from '../../lambdas/adapters/sqs-delivery-queue.ts';
import { SqsTicketCheckQueue } from '../../lambdas/adapters/sqs-ticket-checks.ts';
import type { DeliveryLane } from '../../lambdas/core/delivery-lanes.ts';
import type { Delivery } from '../../lambdas/store/deliveries.ts';
import { deliverOne, MAX_QUEUE_DELAY_SECONDS, type DeliverDeps } from '../../lambdas/workers/deliver.ts';
import { loopbackOnly, MOTO_ACCOUNT, MOTO_REGION, motoAvailable, motoModels, useMotoServer } from '../support/moto-server.ts';
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
  const { moto, client } = useMotoServer();

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
});
