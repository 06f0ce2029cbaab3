import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { DELIVERY_BATCH_SIZE, FAST_LANE_BUDGET_MS, type DeliveryLane, type DeliveryRoute } from '#core/delivery-lanes.ts';
import { setNewest } from '#core/bounded-map.ts';
import { newId } from '#core/ids.ts';
import type { DeliveryQueue } from '#core/ports.ts';

export interface TimerQueueOptions {
  /**
   * The delivery worker, called with an SQS event as SQS calls it: a batch of up to
   * DELIVERY_BATCH_SIZE due messages, all of one subscription (a group's messages only).
   */
  deliver(event: SQSEvent): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>;
  onError?: (error: unknown, deliveryId: string) => void;
  /** How long a failed message waits before it is handed over again (SQS's visibility timeout). */
  redeliverAfterMs?: number;
  /**
   * Worker calls at once in each lane, each with up to DELIVERY_BATCH_SIZE messages: the
   * function's concurrency deployed (lib/webhooks.ts DELIVERY_CONCURRENCY). The messages due beyond
   * it wait their turn, as SQS messages wait for a free worker. Without it, a backlog (a restart)
   * starts every delivery at the same moment, and they slow each other down.
   */
  maxInFlight?: number;
  /**
   * Attempts at once for a subscription not yet seen answering quickly (a new one, or one whose
   * last message took long): enough to start, too few for a burst of them to fill a lane.
   */
  maxInFlightUnproven?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 16;
export const DEFAULT_MAX_IN_FLIGHT_UNPROVEN = 2;
/**
 * The share of the fast lane's worker calls kept for groups whose last batch ended within its
 * budget: groups never served (new subscriptions) or whose last batch ran into it (receivers that
 * hang) together take the rest, so that a burst of them, however many, leaves a healthy
 * subscription a worker. Judged by the budget, not by QUICK_MS: a healthy receiver's batch that the
 * table made slower under that very burst still counts as answered.
 */
const RESERVED_FOR_ANSWERING = 0.25;
/** A batch the worker finished within this proves its group quick: it is then held to no cap of its own. */
const QUICK_MS = 500;
/** Groups whose record (quick or not) a lane keeps; the oldest go first. */
const REMEMBERED_GROUPS = 10_000;

interface Message {
  deliveryId: string;
  receiveCount: number;
  group: string;
}

/**
 * Stands in for the SQS delivery queues locally: one lane per DeliveryLane (core/delivery-lanes.ts),
 * each with its own workers. Each send arms an unref'd timer that, when due, hands the message to
 * the same delivery worker with an SQS-shaped event; a message the worker reports as failed is
 * handed over again later. In memory only: the delivery sweep re-drives what a restart lost.
 */
export class TimerQueue implements DeliveryQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly lanes: Record<DeliveryLane, Lane>;
  /**
   * Deliveries with a message waiting (armed or due, not yet handed to the worker). A second send
   * for one of them is dropped: the waiting message will run the delivery, and the sweep, which
   * re-sends every delivery past due, would otherwise pile copies onto a slow lane's backlog.
   */
  private readonly waiting = new Set<string>();
  private stopped = false;

  constructor(private readonly options: TimerQueueOptions) {
    const handedOver = (deliveryId: string) => this.waiting.delete(deliveryId);
    this.lanes = { fast: new Lane('fast', options, () => this.stopped, handedOver), slow: new Lane('slow', options, () => this.stopped, handedOver) };
  }

  async send(deliveryId: string, delaySeconds: number, route?: DeliveryRoute) {
    if (this.stopped || this.waiting.has(deliveryId)) return;
    this.arm(route?.lane ?? 'fast', { deliveryId, receiveCount: 1, group: route?.group ?? deliveryId }, Math.max(0, delaySeconds) * 1000);
  }

  async stop() {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([this.lanes.fast.drain(), this.lanes.slow.drain()]);
  }

  private arm(lane: DeliveryLane, message: Message, delayMs: number) {
    this.waiting.add(message.deliveryId);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped) return;
      this.lanes[lane].add(message, (failed) => {
        if (failed && message.receiveCount < 5) this.arm(lane, { ...message, receiveCount: message.receiveCount + 1 }, this.options.redeliverAfterMs ?? 30_000);
      });
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }
}

/** A due message and what to do once the worker is done with it. */
interface Due {
  message: Message;
  done: (failed: boolean) => void;
}

/**
 * One lane's workers: due messages wait in their group, the group served least recently goes
 * first (so one subscription's backlog does not stand in front of another's next message), a
 * group not yet seen answering quickly has at most `maxInFlightUnproven` messages in flight, and,
 * in the fast lane, groups never served or whose last batch ran into its budget together never
 * take the calls kept for the others. A
 * group's turn hands a worker call up to DELIVERY_BATCH_SIZE of its due messages at once, as SQS
 * hands a backed-up queue's messages in batches: their reads and outcomes go to the table
 * together. A batch never mixes groups, so a slow receiver's batch holds no other subscription's
 * message.
 */
class Lane {
  private readonly running = new Set<Promise<unknown>>();
  private readonly due = new Map<string, Due[]>();
  /** Each group's messages handed to the worker and not yet done. */
  private readonly inFlight = new Map<string, number>();
  /** Worker calls running for groups not seen answering (never served, or their last batch ran into the budget). */
  private unansweredCalls = 0;
  /** What the lane remembers of a group: whether its last batch was quick, whether it ended within the budget, and when it was last served. */
  private readonly groups = new Map<string, { quick: boolean; answered: boolean; servedAt: number }>();
  private turn = 0;
  private startScheduled = false;

  constructor(
    private readonly lane: DeliveryLane,
    private readonly options: TimerQueueOptions,
    private readonly stopped: () => boolean,
    /** Told when a message goes to the worker: from then on a new message for its delivery may wait. */
    private readonly handedOver: (deliveryId: string) => void,
  ) {}

  add(message: Message, done: (failed: boolean) => void) {
    const waiting = this.due.get(message.group) ?? [];
    waiting.push({ message, done });
    this.due.set(message.group, waiting);
    this.scheduleStart();
  }

  async drain() {
    this.due.clear();
    await Promise.allSettled([...this.running]);
  }

  /**
   * Starts what is due once the timers due now have all run: messages that fall due together (a
   * fan-out transaction's deliveries) and room freed together go out as batches, not one by one.
   * A zero timer rather than setImmediate, so that tests on fake timers drive it as they drive the rest.
   */
  private scheduleStart() {
    if (this.startScheduled) return;
    this.startScheduled = true;
    setTimeout(() => {
      this.startScheduled = false;
      this.startDue();
    }, 0);
  }

  private startDue() {
    const calls = Math.max(1, this.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    // The fast lane's only: in the slow lane every receiver has run into that budget (that is how
    // it got there), so the calls kept back would stand idle while slow deliveries wait.
    const unansweredCalls = this.lane === 'fast' ? Math.max(1, calls - Math.floor(calls * RESERVED_FOR_ANSWERING)) : calls;
    let started = true;
    // Round after round, each group with messages due and room for them starts a batch, least
    // recently served first, until the lane's calls are all busy.
    while (started && !this.stopped() && this.running.size < calls) {
      started = false;
      const ready = [...this.due.keys()]
        .filter((group) => (this.inFlight.get(group) ?? 0) < this.groupLimit(group))
        .sort((a, b) => (this.groups.get(a)?.servedAt ?? -1) - (this.groups.get(b)?.servedAt ?? -1));
      for (const group of ready) {
        if (this.running.size >= calls) break;
        if (this.groups.get(group)?.answered !== true && this.unansweredCalls >= unansweredCalls) continue;
        const room = Math.min(DELIVERY_BATCH_SIZE, this.groupLimit(group) - (this.inFlight.get(group) ?? 0));
        const waiting = this.due.get(group)!;
        const batch = waiting.splice(0, room);
        if (waiting.length === 0) this.due.delete(group);
        this.note(group, { servedAt: ++this.turn });
        this.start(group, batch);
        started = true;
      }
    }
  }

  /** Messages a group may have in flight: no cap of its own once it answered quickly (only the lane's calls hold it). */
  private groupLimit(group: string) {
    return this.groups.get(group)?.quick ? Infinity : Math.max(1, this.options.maxInFlightUnproven ?? DEFAULT_MAX_IN_FLIGHT_UNPROVEN);
  }

  private start(group: string, batch: Due[]) {
    for (const { message } of batch) this.handedOver(message.deliveryId);
    this.inFlight.set(group, (this.inFlight.get(group) ?? 0) + batch.length);
    const unanswered = this.groups.get(group)?.answered !== true;
    if (unanswered) this.unansweredCalls++;
    const startedAt = Date.now();
    const records = batch.map(({ message }) => sqsRecord(message, this.lane));
    const call = this.options
      .deliver({ Records: records })
      .then((result) => {
        const failed = new Set(result.batchItemFailures.map((failure) => failure.itemIdentifier));
        batch.forEach(({ done }, index) => done(failed.has(records[index]!.messageId)));
      })
      .catch((error: unknown) => {
        for (const { message } of batch) this.options.onError?.(error, message.deliveryId);
      });
    this.running.add(call);
    void call.finally(() => {
      this.running.delete(call);
      if (unanswered) this.unansweredCalls--;
      const left = (this.inFlight.get(group) ?? batch.length) - batch.length;
      if (left > 0) this.inFlight.set(group, left);
      else this.inFlight.delete(group);
      const took = Date.now() - startedAt;
      this.note(group, { quick: took < QUICK_MS, answered: took < FAST_LANE_BUDGET_MS });
      this.scheduleStart();
    });
  }

  private note(group: string, change: Partial<{ quick: boolean; answered: boolean; servedAt: number }>) {
    const known = this.groups.get(group) ?? { quick: false, answered: false, servedAt: -1 };
    setNewest(this.groups, group, { ...known, ...change }, REMEMBERED_GROUPS);
  }
}

const sqsRecord = (message: Message, lane: DeliveryLane): SQSRecord => ({
  messageId: newId(),
  receiptHandle: 'local',
  body: JSON.stringify({ deliveryId: message.deliveryId, lane }),
  attributes: {
    ApproximateReceiveCount: String(message.receiveCount),
    SentTimestamp: String(Date.now()),
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
    MessageGroupId: message.group,
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:local:000000000000:${lane === 'fast' ? 'deliveries' : 'slow-deliveries'}`,
  awsRegion: 'local',
});
