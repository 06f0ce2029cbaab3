import type { Clock } from '#core/clock.ts';
import { routeOf } from '#core/delivery-lanes.ts';
import type { DeliveryQueue } from '#core/ports.ts';
import type { DeliveryStore } from '#store/deliveries.ts';
import type { AppDeps } from '../app-deps.ts';
import { webhookWiring } from './webhook-wiring.ts';

/** A delivery this far past due has lost its message (a live one would have been taken by now). */
export const SWEEP_GRACE_MS = 60_000;

export interface DeliverySweepDeps {
  clock: Clock;
  logger: Pick<AppDeps['logger'], 'info' | 'error' | 'debug'>;
  deliveries: Pick<DeliveryStore, 'due'>;
  queue: DeliveryQueue;
}

/**
 * For callers that create deliveries outside a queue's reach (the operator CLI): sends nothing. A
 * delivery left pending is enqueued by the sweep within its period, deployed or under `npm start`,
 * as any delivery whose message was lost.
 */
export const sweepDrivenQueue: DeliveryQueue = { send: async () => undefined };

/** The latest time there can be: every pending delivery is due by then. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/**
 * The delivery sweep, every five minutes deployed: re-enqueues every pending delivery whose next
 * attempt is past due (by more than a minute), whatever became of its message. The worker's
 * claim makes a duplicate message harmless, and one not yet due only hops on. Logs counts only.
 *
 * `allPending` re-enqueues the future ones too: the local runtime does so at start, because its
 * in-memory queue lost every message when the process before it stopped.
 */
export const createHandler = (deps: DeliverySweepDeps) =>
  async (input: { allPending?: boolean } = {}): Promise<{ requeued: number; failed: number }> => {
    const until = input.allPending === true ? END_OF_TIME : new Date(deps.clock.now().getTime() - SWEEP_GRACE_MS).toISOString();
    let requeued = 0;
    let failed = 0;
    for (const { id, webhookId } of await deps.deliveries.due(until)) {
      try {
        // The fast lane, grouped by its subscription: the worker moves it on if the subscription is
        // slow, and one subscription's many lost messages wait their turn behind others' deliveries.
        await deps.queue.send(id, 0, routeOf({ id: webhookId }));
        requeued++;
      } catch (error) {
        failed++;
        deps.logger.error('delivery sweep could not enqueue', { deliveryId: id, errorName: (error as Error)?.name });
      }
    }
    const summary = { requeued, failed };
    if (requeued || failed) deps.logger.info('delivery sweep', summary);
    else deps.logger.debug('delivery sweep', summary);
    return summary;
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = () => (built ??= createHandler(webhookWiring()))();
