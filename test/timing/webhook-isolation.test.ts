/**
 * One customer's slow receivers must not hold up anyone else's webhooks (core/delivery-lanes.ts),
 * through `npm start`'s runtime: the API commits the events, the stream poller fans them out, the
 * timer queue's lanes run the delivery worker. Five subscriptions point at receivers that never
 * answer and one at a healthy receiver, all on `request.created`, in one organisation; 40 requests
 * are created in bursts. The healthy receiver's deliveries must arrive within 2 seconds (p99) of
 * their commit, while the hanging receivers are moved to the slow lane.
 *
 * The same traffic runs once first with the healthy receiver alone: a freshly started DynamoDB
 * Local runs its first few hundred calls interpreted, several times slower than once its JIT has
 * compiled them (bench/stats.ts warms up for the same reason), and a running service is warm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/local-process.ts';
import { startReceiver } from '../support/receiver.ts';
import { putSubscription } from '../support/webhooks.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const REQUESTS = 40;
const HANGING = 5;

let service: TestService;
let org: TestOrganisation;
let healthy: Awaited<ReturnType<typeof startReceiver>>;
let hanging: Array<Awaited<ReturnType<typeof startReceiver>>>;
/** When the healthy receiver got each event, by event id. */
const arrivedAt = new Map<string, number>();

beforeAll(async () => {
  service = await startTestService({ webhooks: true, allowLoopbackWebhooks: true });
  org = await service.createOrganisation();
  healthy = await startReceiver({
    answer: (receipt) => {
      if (receipt.eventId && !arrivedAt.has(receipt.eventId)) arrivedAt.set(receipt.eventId, Date.now());
      return 204;
    },
  });
  hanging = await Promise.all(Array.from({ length: HANGING }, () => startReceiver({ answer: () => 'hang' })));
});

afterAll(async () => {
  // The hanging receivers let go first, so the workers waiting on them end.
  for (const receiver of hanging ?? []) await receiver.close();
  await service?.stop();
  await healthy?.close();
});

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Creates REQUESTS requests in bursts of 10 concurrent calls. */
const createRequests = async () => {
  const body = { subject_name: 'Ivy Isolation', justification: 'Webhook isolation under slow receivers', recipients: [org.owner.email] };
  for (let sent = 0; sent < REQUESTS; sent += 10) {
    const answers = await Promise.all(Array.from({ length: 10 }, () => service.call('POST', '/requests', { key: org.key, body })));
    for (const answer of answers) expect(answer.status, answer.text).toBe(201);
  }
};

/** Every `request.created` event in the feed, with its commit time. */
const committedEvents = async () => {
  const feed = await service.call('GET', '/events?types=request.created&limit=200', { key: org.key });
  expect(feed.status, feed.text).toBe(200);
  return new Map<string, number>((feed.body.data as Array<{ id: string; occurred_at: string }>).map((e) => [e.id, Date.parse(e.occurred_at)]));
};

describe('deliveries isolated per receiver', () => {
  it("five hanging receivers do not delay a healthy receiver's deliveries: p99 under 2 seconds from commit", async () => {
    await putSubscription(service, org.orgId, { url: `${healthy.url}/hook`, events: ['request.created'] });
    await createRequests();
    const warmUp = await committedEvents();
    await waitFor(() => ([...warmUp.keys()].every((id) => arrivedAt.has(id)) ? true : undefined), 30_000, 'every warm-up delivery');

    const slowSubscriptions = [];
    for (const receiver of hanging) slowSubscriptions.push(await putSubscription(service, org.orgId, { url: `${receiver.url}/hook`, events: ['request.created'] }));
    await createRequests();

    // Every event the healthy receiver should get since the hanging receivers were subscribed.
    const committed = new Map([...(await committedEvents())].filter(([id]) => !warmUp.has(id)));
    expect(committed.size).toBe(REQUESTS);

    await waitFor(() => ([...committed.keys()].every((id) => arrivedAt.has(id)) ? true : undefined), 30_000, 'every healthy delivery');
    const latencies = [...committed].map(([id, at]) => arrivedAt.get(id)! - at).sort((a, b) => a - b);
    const p99 = percentile(latencies, 99);
    expect(p99, `healthy delivery latencies (ms): ${latencies.join(', ')}`).toBeLessThan(2_000);

    // Meanwhile each hanging receiver got its first delivery and, once that attempt ran out of the
    // fast lane's budget (FAST_LANE_BUDGET_MS after it started, possibly after the healthy
    // deliveries all arrived), was moved to the slow lane.
    for (const receiver of hanging) await waitFor(() => (receiver.receipts.length > 0 ? true : undefined), 10_000, `a delivery at ${receiver.url}`);
    for (const subscription of slowSubscriptions) {
      const slowSince = async () => (await service.webhooks!.deliveries.subscription(org.orgId, subscription.id))?.slowSince ?? undefined;
      await waitFor(slowSince, 10_000, `${subscription.url} in the slow lane`);
    }
  });
});
