/**
 * Webhook deliveries run in two lanes, so that a receiver that is slow, hangs or fails cannot hold
 * up other subscriptions' deliveries.
 *
 * Every subscription starts in the fast lane, where an attempt may take at most
 * FAST_LANE_BUDGET_MS. A receiver that has not answered by then is marked slow: that attempt is
 * abandoned without being counted against it and made again at once in the slow lane, which has
 * workers of its own and the full timeout SPEC.md promises (10 seconds), and its later deliveries
 * go straight to the slow lane. An answer within FAST_ANSWER_MS, in either lane, brings the
 * subscription back. A fast-lane worker is therefore never held longer than the budget, whatever
 * the receivers do; the price of being slow is paid by the slow receiver: its deliveries wait for
 * the slow lane's workers, and the attempt that found it slow reaches it twice (the same
 * `webhook-id`, which receivers already de-duplicate on).
 *
 * Messages carry their subscription as a group: the local queue takes groups in turn and caps how
 * many attempts a group not yet seen answering quickly has in flight; deployed, the group is the
 * SQS message group of a fair queue, which serves quiet subscriptions ahead of one with a backlog.
 */
export type DeliveryLane = 'fast' | 'slow';

/**
 * Messages the delivery worker takes at once (the SQS event source's batch deployed, the local
 * queue's likewise): their reads, and their outcomes, go to the table together.
 */
export const DELIVERY_BATCH_SIZE = 10;

/** How long an attempt may take in the fast lane before its receiver is moved to the slow lane. */
export const FAST_LANE_BUDGET_MS = 2_000;
/** An answer at least this quick brings a slow receiver back to the fast lane (half the budget, so a receiver near the budget does not flap). */
export const FAST_ANSWER_MS = 1_000;

/** Where a delivery's message goes: its lane, and the subscription it belongs to. */
export interface DeliveryRoute {
  lane: DeliveryLane;
  /** The subscription's id: the queue's unit of fairness. */
  group: string;
}

/** The lane a subscription's deliveries belong in. */
export const laneOf = (subscription: { slowSince?: string | null }): DeliveryLane => (subscription.slowSince ? 'slow' : 'fast');

/** The route of a subscription's deliveries. */
export const routeOf = (subscription: { id: string; slowSince?: string | null }): DeliveryRoute => ({ lane: laneOf(subscription), group: subscription.id });

/** A webhook POST that got no answer in its time (the outbound client's timeout). */
export class WebhookTimedOut extends Error {
  constructor() {
    super('webhook timed out');
  }
}
