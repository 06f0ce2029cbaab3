import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SqsDeliveryQueue } from '../../../lambdas/adapters/sqs-delivery-queue.ts';
import type { DeliveryQueue } from '../../../lambdas/core/ports.ts';

const sqs = mockClient(SQSClient);
const QUEUE_URL = 'https://sqs.eu-west-2.amazonaws.com/111122223333/handoff-deliveries';
const SLOW_QUEUE_URL = 'https://sqs.eu-west-2.amazonaws.com/111122223333/handoff-slow-deliveries';
const ID = '01hdelivery000000000000001';
const port = (): DeliveryQueue =>
  new SqsDeliveryQueue({ fast: QUEUE_URL, slow: SLOW_QUEUE_URL }, new SQSClient({ region: 'eu-west-2', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' } }));

beforeEach(() => sqs.reset());
afterAll(() => sqs.restore());

describe('SqsDeliveryQueue', () => {
  it('sends exactly one message {deliveryId, lane} with the delay, to the fast lane without a route', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    await port().send(ID, 60);
    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ deliveryId: ID, lane: 'fast' }), DelaySeconds: 60 });
  });

  it("sends to the route's lane, with the subscription as the message group (SQS fair queues)", async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    await port().send(ID, 0, { lane: 'slow', group: 'webhook1' });
    await port().send(ID, 5, { lane: 'fast', group: 'webhook2' });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: SLOW_QUEUE_URL, MessageBody: JSON.stringify({ deliveryId: ID, lane: 'slow' }), DelaySeconds: 0, MessageGroupId: 'webhook1' },
      { QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ deliveryId: ID, lane: 'fast' }), DelaySeconds: 5, MessageGroupId: 'webhook2' },
    ]);
  });

  it('keeps the delay within SQS limits (0..900 s, whole seconds)', async () => {
    sqs.on(SendMessageCommand).resolves({});
    await port().send(ID, 86_400);
    await port().send(ID, -5);
    await port().send(ID, 1.2);
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input.DelaySeconds)).toEqual([900, 0, 2]);
  });

  it('passes a failure on, so the caller reports the record as failed', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('throttled'));
    await expect(port().send(ID, 0)).rejects.toThrow('throttled');
  });
});
