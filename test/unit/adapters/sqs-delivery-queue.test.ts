import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SqsDeliveryQueue } from '../../../lambdas/adapters/sqs-delivery-queue.ts';
import type { DeliveryQueue } from '../../../lambdas/core/ports.ts';

const sqs = mockClient(SQSClient);
const QUEUE_URL = 'https://sqs.eu-west-2.amazonaws.com/111122223333/handoff-deliveries';
const ID = '01hdelivery000000000000001';
const port = (): DeliveryQueue =>
  new SqsDeliveryQueue(QUEUE_URL, new SQSClient({ region: 'eu-west-2', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' } }));

beforeEach(() => sqs.reset());
afterAll(() => sqs.restore());

describe('SqsDeliveryQueue', () => {
  it('sends exactly one message {deliveryId} with the delay', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    await port().send(ID, 60);
    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ deliveryId: ID }), DelaySeconds: 60 });
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
