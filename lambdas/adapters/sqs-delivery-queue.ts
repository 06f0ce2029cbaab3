import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryLane, DeliveryRoute } from '#core/delivery-lanes.ts';
import type { DeliveryQueue } from '#core/ports.ts';

/** SQS's largest DelaySeconds. */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * The delivery queues on SQS, one per lane (core/delivery-lanes.ts), each feeding the delivery
 * worker under its own concurrency: one message `{"deliveryId": "<ulid>", "lane": ...}` per send.
 * A message's group is its subscription: on a standard queue, SQS fair queues use the message group
 * to serve quiet subscriptions ahead of one that has built a backlog.
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly queueUrls: Readonly<Record<DeliveryLane, string>>,
    private readonly client: SQSClient = new SQSClient({}),
  ) {}

  async send(deliveryId: string, delaySeconds: number, route?: DeliveryRoute) {
    const lane = route?.lane ?? 'fast';
    const delay = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrls[lane],
        MessageBody: JSON.stringify({ deliveryId, lane }),
        DelaySeconds: delay,
        ...(route ? { MessageGroupId: route.group } : {}),
      }),
    );
  }
}
