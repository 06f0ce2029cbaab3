/**
 * The delivery lanes (core/delivery-lanes.ts) against DynamoDB Local, with a fake clock, a
 * recording queue and a scripted HTTP client: a receiver that does not answer within the fast
 * lane's budget is moved to the slow lane with its attempt given back; a slow subscription's
 * deliveries go to the slow lane without an attempt in the fast one; the slow lane has SPEC.md's
 * 10 seconds and keeps the retry schedule; a quick answer brings the receiver back.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAST_LANE_BUDGET_MS, WebhookTimedOut } from '../../lambdas/core/delivery-lanes.ts';
import type { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { deliverOne, WEBHOOK_TIMEOUT_MS, type DeliverDeps } from '../../lambdas/workers/deliver.ts';
import type { WebhookPoster } from '../../lambdas/core/ports.ts';
import { fanOutEvent, movableClock, putSubscription, quietLogger, recordingQueue, scriptedHttp, startDeliveryTestbed } from '../support/webhooks.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;

beforeAll(async () => ({ service, org, store } = await startDeliveryTestbed({ clock })));
afterAll(() => service?.stop());
beforeEach(() => clock.set(Date.now()));

const depsWith = (http: WebhookPoster) => {
  const recorded = recordingQueue(clock);
  const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: store, queue: recorded.queue, http, sealer: service.deps.sealer };
  return { deps, sent: recorded.sent };
};

describe('delivery lanes', () => {
  it('moves a receiver that does not answer within the fast budget to the slow lane, its attempt given back, and delivers there with 10 seconds', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { calls, http } = scriptedHttp(clock, [new WebhookTimedOut(), 204]);
    const { deps, sent } = depsWith(http);
    const { deliveryId } = await fanOutEvent(service, org, subscription, deps);
    // The fan-out routes a new subscription's delivery to the fast lane, grouped by subscription.
    expect(sent.shift()).toMatchObject({ deliveryId, delaySeconds: 0, route: { lane: 'fast', group: subscription.id } });

    expect(await deliverOne(deps, deliveryId, 'fast')).toBe('to_slow_lane');
    expect(calls.map((c) => c.timeoutMs)).toEqual([FAST_LANE_BUDGET_MS]);
    // Not counted against the receiver: the delivery is due again now, with no attempt used.
    expect(await store.get(deliveryId)).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: clock.now().toISOString() });
    const marked = await store.subscription(org.orgId, subscription.id);
    expect(marked!.slowSince).toBe(clock.now().toISOString());
    expect(marked!.failingSince).toBeNull();
    expect(sent.splice(0)).toEqual([{ deliveryId, delaySeconds: 0, at: clock.now().getTime(), route: { lane: 'slow', group: subscription.id } }]);

    // In the slow lane the attempt has the full timeout; a quick 2xx brings the receiver back.
    expect(await deliverOne(deps, deliveryId, 'slow')).toBe('delivered');
    expect(calls.map((c) => c.timeoutMs)).toEqual([FAST_LANE_BUDGET_MS, WEBHOOK_TIMEOUT_MS]);
    // Both attempts carry the same webhook-id, so the receiver can tell the second is the first again.
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    expect(await store.get(deliveryId)).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 204 });
    expect((await store.subscription(org.orgId, subscription.id))!.slowSince).toBeNull();
  });

  it("sends a slow subscription's deliveries to the slow lane without an attempt in the fast one", async () => {
    const slowSince = new Date(clock.now().getTime() - 60_000).toISOString();
    const subscription = await putSubscription(service, org.orgId, { slowSince });
    const { calls, http } = scriptedHttp(clock, [204]);
    const { deps, sent } = depsWith(http);
    const { deliveryId } = await fanOutEvent(service, org, subscription, deps);
    // The fan-out already knows the lane.
    expect(sent.shift()).toMatchObject({ deliveryId, route: { lane: 'slow', group: subscription.id } });
    // A message that finds it in the fast lane anyway (the sweep's, or one sent before the receiver turned slow) moves on.
    expect(await deliverOne(deps, deliveryId, 'fast')).toBe('to_slow_lane');
    expect(calls).toHaveLength(0);
    expect(sent.shift()).toMatchObject({ deliveryId, delaySeconds: 0, route: { lane: 'slow', group: subscription.id } });
    expect(await store.get(deliveryId)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('keeps the retry schedule and failing_since in the slow lane: a timeout there is a failed attempt, retried in the slow lane', async () => {
    const subscription = await putSubscription(service, org.orgId, { slowSince: clock.now().toISOString() });
    const { calls, http } = scriptedHttp(clock, [new WebhookTimedOut()]);
    const { deps, sent } = depsWith(http);
    const { deliveryId } = await fanOutEvent(service, org, subscription, deps);
    sent.splice(0);
    expect(await deliverOne(deps, deliveryId, 'slow')).toBe('retry');
    expect(calls.map((c) => c.timeoutMs)).toEqual([WEBHOOK_TIMEOUT_MS]);
    expect(await store.get(deliveryId)).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null, lastError: 'webhook timed out' });
    expect(sent).toEqual([{ deliveryId, delaySeconds: 60, at: clock.now().getTime(), route: { lane: 'slow', group: subscription.id } }]);
    const after = await store.subscription(org.orgId, subscription.id);
    expect(after!.failingSince).toBe(clock.now().toISOString());
    expect(after!.slowSince).not.toBeNull();
  });

  it('keeps a receiver that answers slowly in the slow lane, and brings back one that fails quickly', async () => {
    const slow = await putSubscription(service, org.orgId, { slowSince: clock.now().toISOString() });
    const answersLate: WebhookPoster = { post: () => new Promise((done) => setTimeout(() => done({ status: 200 }), 1_100)) };
    const late = depsWith(answersLate);
    const { deliveryId: lateId } = await fanOutEvent(service, org, slow, late.deps);
    expect(await deliverOne(late.deps, lateId, 'slow')).toBe('delivered');
    expect((await store.subscription(org.orgId, slow.id))!.slowSince).not.toBeNull();

    const failing = await putSubscription(service, org.orgId, { slowSince: clock.now().toISOString() });
    const { http } = scriptedHttp(clock, [503]);
    const quick = depsWith(http);
    const { deliveryId } = await fanOutEvent(service, org, failing, quick.deps);
    quick.sent.splice(0);
    expect(await deliverOne(quick.deps, deliveryId, 'slow')).toBe('retry');
    expect((await store.subscription(org.orgId, failing.id))!.slowSince).toBeNull();
    // Its retry goes back to the fast lane.
    expect(quick.sent).toMatchObject([{ deliveryId, delaySeconds: 60, route: { lane: 'fast', group: failing.id } }]);
  });
  it('gives a delivery its attempt back once only: once moved, it stays in the slow lane even when the receiver turns quick', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { calls, http } = scriptedHttp(clock, [new WebhookTimedOut(), 503]);
    const { deps, sent } = depsWith(http);
    const { deliveryId } = await fanOutEvent(service, org, subscription, deps);
    sent.splice(0);
    expect(await deliverOne(deps, deliveryId, 'fast')).toBe('to_slow_lane');
    sent.splice(0);
    // A quick 503 in the slow lane: counted, the receiver back in the fast lane, but this delivery's retry stays slow.
    expect(await deliverOne(deps, deliveryId, 'slow')).toBe('retry');
    expect((await store.subscription(org.orgId, subscription.id))!.slowSince).toBeNull();
    expect(sent.splice(0)).toMatchObject([{ deliveryId, delaySeconds: 60, route: { lane: 'slow', group: subscription.id } }]);
    // A message that finds it in the fast lane anyway (the sweep's) moves on without a POST.
    clock.advance(60_000);
    expect(await deliverOne(deps, deliveryId, 'fast')).toBe('to_slow_lane');
    expect(calls).toHaveLength(2);
    expect(await store.get(deliveryId)).toMatchObject({ attempts: 1, movedToSlowLane: true });
  });

  it('keeps a receiver in the slow lane when an attempt fails without an answer from it, however quickly', async () => {
    const subscription = await putSubscription(service, org.orgId, { slowSince: clock.now().toISOString() });
    const { http } = scriptedHttp(clock, [new Error('connect ECONNREFUSED')]);
    const { deps, sent } = depsWith(http);
    const { deliveryId } = await fanOutEvent(service, org, subscription, deps);
    sent.splice(0);
    expect(await deliverOne(deps, deliveryId, 'slow')).toBe('retry');
    expect((await store.subscription(org.orgId, subscription.id))!.slowSince).not.toBeNull();
    expect(sent).toMatchObject([{ deliveryId, route: { lane: 'slow' } }]);
  });
});
