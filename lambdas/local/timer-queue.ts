import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { newId } from '#core/ids.ts';
import type { DeliveryQueue } from '#core/ports.ts';

export interface TimerQueueOptions {
  /** The delivery worker, called with a one-record SQS event, as SQS would. */
  deliver(event: SQSEvent): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>;
  onError?: (error: unknown, deliveryId: string) => void;
  /** How long a failed message waits before it is handed over again (SQS's visibility timeout). */
  redeliverAfterMs?: number;
  /**
   * Deliveries worked on at once; the messages due beyond it wait their turn, as SQS messages wait
   * for a free worker under the function's concurrency. Without it, a backlog (a restart) starts
   * every delivery at the same moment, and they slow each other down.
   */
  maxInFlight?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 16;

/**
 * Stands in for the SQS delivery queue locally: each send arms an unref'd timer that calls the
 * same delivery worker with an SQS-shaped event; a message the worker reports as failed is handed
 * over again later, and at most `maxInFlight` run at once. In memory only: the delivery sweep
 * re-drives what a restart lost.
 */
export class TimerQueue implements DeliveryQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly due: Array<{ deliveryId: string; receiveCount: number }> = [];
  private stopped = false;

  constructor(private readonly options: TimerQueueOptions) {}

  async send(deliveryId: string, delaySeconds: number) {
    if (this.stopped) return;
    this.arm(deliveryId, Math.max(0, delaySeconds) * 1000, 1);
  }

  async stop() {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private arm(deliveryId: string, delayMs: number, receiveCount: number) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped) return;
      this.due.push({ deliveryId, receiveCount });
      this.startDue();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Hands due messages to the worker while fewer than `maxInFlight` are being worked on. */
  private startDue() {
    const limit = Math.max(1, this.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    while (!this.stopped && this.running.size < limit && this.due.length > 0) {
      const { deliveryId, receiveCount } = this.due.shift()!;
      const call = this.options
        .deliver({ Records: [sqsRecord(deliveryId, receiveCount)] })
        .then((result) => {
          if (result.batchItemFailures.length > 0 && receiveCount < 5) this.arm(deliveryId, this.options.redeliverAfterMs ?? 30_000, receiveCount + 1);
        })
        .catch((error: unknown) => this.options.onError?.(error, deliveryId));
      this.running.add(call);
      void call.finally(() => {
        this.running.delete(call);
        this.startDue();
      });
    }
  }
}

const sqsRecord = (deliveryId: string, receiveCount: number): SQSRecord => ({
  messageId: newId(),
  receiptHandle: 'local',
  body: JSON.stringify({ deliveryId }),
  attributes: {
    ApproximateReceiveCount: String(receiveCount),
    SentTimestamp: String(Date.now()),
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:local:000000000000:deliveries',
  awsRegion: 'local',
});
