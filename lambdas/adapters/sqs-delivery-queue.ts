import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue } from '#core/ports.ts';

/** SQS's largest DelaySeconds. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** The delivery queue on SQS: one message `{"deliveryId": "<ulid>"}` per send. */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly queueUrl: string,
    private readonly client: SQSClient = new SQSClient({}),
  ) {}

  async send(deliveryId: string, delaySeconds: number) {
    const delay = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify({ deliveryId }), DelaySeconds: delay }),
    );
  }
}
