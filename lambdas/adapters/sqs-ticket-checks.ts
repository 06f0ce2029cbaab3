import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { TicketCheck, TicketCheckQueue } from '#core/ticket-check.ts';
import { SQS_MAX_DELAY_SECONDS } from './sqs-delivery-queue.ts';

/** A queued ticket check as the worker receives it; `notBefore` (epoch ms) carries a wait longer than SQS's largest delay. */
export interface TicketCheckMessage extends TicketCheck {
  notBefore: number;
}

/**
 * The ticket-check queue on SQS: one message per check, delayed by up to 15 minutes (a longer
 * Retry-After is carried in `notBefore`, and the worker waits out the rest with another message).
 */
export class SqsTicketCheckQueue implements TicketCheckQueue {
  constructor(
    private readonly queueUrl: string,
    private readonly now: () => number = Date.now,
    private readonly client: SQSClient = new SQSClient({}),
  ) {}

  async enqueue(check: TicketCheck, delaySeconds: number) {
    const wait = Math.max(0, Math.ceil(delaySeconds));
    const message: TicketCheckMessage = { ...check, notBefore: this.now() + wait * 1000 };
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: Math.min(SQS_MAX_DELAY_SECONDS, wait) }),
    );
  }
}
