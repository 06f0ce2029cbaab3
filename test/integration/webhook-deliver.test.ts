/**
 * The delivery worker against DynamoDB Local, with a fake clock, a recording queue and a scripted
 * HTTP client: the retry schedule (with hops past SQS's 15 minutes), one webhook-id across
 * retries, the final failure audited with the subscription marked failing, success clearing it,
 * a 3xx counted as a failure, and the sweep re-driving a lost message.
 */
import { createHmac } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAST_LANE_BUDGET_MS, type DeliveryRoute } from '../../lambdas/core/delivery-lanes.ts';
import { toEventObject } from '../../lambdas/core/events.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { webhookSecretContext } from '../../lambdas/core/webhooks.ts';
import { DeliveryStore, type WebhookTarget } from '../../lambdas/store/deliveries.ts';
import { deliverOne, MAX_QUEUE_DELAY_SECONDS, RETRY_SPAN_SECONDS, USER_AGENT, type DeliverDeps } from '../../lambdas/workers/deliver.ts';
import { createHandler as createSweep } from '../../lambdas/workers/delivery-sweep.ts';
import { fanOutEvent as fanOutEventTo, movableClock, putSubscription, quietLogger, recordingQueue, scriptedHttp, startDeliveryTestbed } from '../support/webhooks.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;

beforeAll(async () => ({ service, org, store } = await startDeliveryTestbed({ clock })));
afterAll(async () => {
  await service?.stop();
});
beforeEach(() => clock.set(Date.now()));

/** An event in the audit chain, fanned out to `subscription`: the delivery's id. */
const fanOutEvent = (subscription: Pick<WebhookTarget, 'id'>, queue: DeliverDeps['queue']) => fanOutEventTo(service, org, subscription, { clock, deliveries: store, queue });

/** Plays the queue: takes the oldest message, moves the clock to when it is due, runs the worker. */
const drain = async (deps: DeliverDeps, sent: Array<{ deliveryId: string; delaySeconds: number; at: number; route?: DeliveryRoute }>) => {
  const outcomes: string[] = [];
  for (let step = 0; sent.length > 0 && step < 1000; step++) {
    const message = sent.shift()!;
    expect(message.delaySeconds).toBeLessThanOrEqual(MAX_QUEUE_DELAY_SECONDS);
    clock.set(message.at + message.delaySeconds * 1000);
    outcomes.push(await deliverOne(deps, message.deliveryId, message.route?.lane));
  }
  return outcomes;
};

describe('delivery worker', () => {
  it('gives a receiver that keeps failing exactly eight attempts on the schedule, with one webhook-id, then fails, audits and marks the subscription', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [500]);
    const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer };
    const { deliveryId, entry } = await fanOutEvent(subscription, queue);

    const outcomes = await drain(deps, sent);

    expect(calls).toHaveLength(8);
    const gaps = calls.slice(1).map((call, i) => (call.at - calls[i]!.at) / 1000);
    expect(gaps).toEqual([60, 300, 1_800, 7_200, 21_600, 43_200, 86_400]);
    // Each delay runs from the attempt before, every one reached through hops of at most 15 minutes
    // (`drain` checks each message's delay): the last attempt comes 44 h 36 m after the first.
    expect((calls.at(-1)!.at - calls[0]!.at) / 1000).toBe(RETRY_SPAN_SECONDS);
    expect(RETRY_SPAN_SECONDS).toBe(44 * 3600 + 36 * 60);
    expect(new Set(calls.map((call) => call.headers['webhook-id'])).size).toBe(1);
    expect(new Set(calls.map((call) => call.headers['X-Service-Delivery']))).toEqual(new Set([deliveryId]));
    expect(outcomes.filter((o) => o === 'hop').length).toBeGreaterThan(0); // the long delays went in hops
    expect(outcomes.at(-1)).toBe('failed');

    const delivery = await store.get(deliveryId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 8, lastStatus: 500 });
    const after = await store.subscription(org.orgId, subscription.id);
    expect(after!.failingSince).toBe(new Date(calls[0]!.at).toISOString()); // set on the first failure, kept
    expect(after!.lastDeliveredAt).toBeNull();

    const { Items } = await service.deps.db.send(
      new QueryCommand({ TableName: service.deps.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `AUDIT#${org.orgId}` } }),
    );
    const failure = (Items ?? []).filter((item) => item.type === 'webhook.delivery_failed');
    expect(failure).toHaveLength(1);
    expect(failure[0]!.data.details).toMatchObject({ webhook_id: subscription.id, delivery_id: deliveryId, event_seq: entry.seq, attempts: 8 });

    // Finished: a stray message does nothing, and the sweep finds nothing due.
    expect(await deliverOne(deps, deliveryId)).toBe('finished');
    expect((await store.due(new Date(clock.now().getTime() + 86_400_000).toISOString())).map((due) => due.id)).not.toContain(deliveryId);
  });

  it('runs each delay from the attempt before\u2019s start, also when that attempt waited out the receiver\u2019s timeout', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { sent, queue } = recordingQueue(clock);
    const starts: number[] = [];
    // A receiver that never answers: each attempt ends at the 10-second timeout.
    const http: DeliverDeps['http'] = {
      post: async () => {
        starts.push(clock.now().getTime());
        clock.set(clock.now().getTime() + 10_000);
        if (starts.length < 4) throw Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
        return { status: 200 };
      },
    };
    const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer };
    const { deliveryId } = await fanOutEvent(subscription, queue);
    expect((await drain(deps, sent)).at(-1)).toBe('delivered');
    expect(starts.slice(1).map((at, i) => (at - starts[i]!) / 1000)).toEqual([60, 300, 1_800]);
    expect(await store.get(deliveryId)).toMatchObject({ status: 'delivered', attempts: 4 });
  });

  it('marks the subscription failing after a failure, though another delivery\u2019s success cleared failing_since while the attempt ran', async () => {
    const subscription = await putSubscription(service, org.orgId, { failingSince: new Date(clock.now().getTime() - 3_600_000).toISOString() });
    const { sent, queue } = recordingQueue(clock);
    const first = await fanOutEvent(subscription, queue);
    const second = await fanOutEvent(subscription, queue);
    let deps: DeliverDeps;
    // The first delivery's attempt read the subscription as failing; while it waits for its receiver,
    // the second delivery succeeds and clears failing_since; then the first one's receiver answers 500.
    const http: DeliverDeps['http'] = {
      post: async (request) => {
        if (request.headers['X-Service-Delivery'] === second.deliveryId) return { status: 204 };
        expect(await deliverOne(deps, second.deliveryId)).toBe('delivered');
        expect((await store.subscription(org.orgId, subscription.id))!.failingSince).toBeNull();
        return { status: 500 };
      },
    };
    deps = { clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer };
    expect(await deliverOne(deps, first.deliveryId)).toBe('retry');
    expect(sent.length).toBeGreaterThan(0);
    expect((await store.subscription(org.orgId, subscription.id))!.failingSince).toBe(clock.now().toISOString());
  });

  it('sends the body as GET /events shows it, with the headers SPEC.md lists, signed with every valid secret', async () => {
    const current = `whsec_${Buffer.from('current-secret-0123456789').toString('base64')}`;
    const old = `whsec_${Buffer.from('old-secret-0123456789abcd').toString('base64')}`;
    const expired = `whsec_${Buffer.from('expired-secret-0123456789').toString('base64')}`;
    const subscription = await putSubscription(service, org.orgId, {
      secrets: [
        { secret: current, expiresAt: null },
        { secret: old, expiresAt: new Date(clock.now().getTime() + 3_600_000).toISOString() },
        { secret: expired, expiresAt: new Date(clock.now().getTime() - 1).toISOString() },
      ],
    });
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [204]);
    const { deliveryId, entry } = await fanOutEvent(subscription, queue);
    expect(await drain({ clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer }, sent)).toEqual(['delivered']);

    const call = calls[0]!;
    expect(call.body).toBe(JSON.stringify(toEventObject(entry as AuditEntry)));
    expect(call.url).toBe(subscription.url);
    // A subscription starts in the fast lane, where an attempt may take the lane's budget (core/delivery-lanes.ts).
    expect(call.timeoutMs).toBe(FAST_LANE_BUDGET_MS);
    expect(Object.keys(call.headers).sort()).toEqual(
      ['Content-Type', 'User-Agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Service-Signature', 'X-Service-Event', 'X-Service-Delivery'].sort(),
    );
    expect(call.headers).toMatchObject({
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'webhook-timestamp': String(Math.floor(call.at / 1000)),
      'X-Service-Event': 'request.created',
      'X-Service-Delivery': deliveryId,
    });
    expect(call.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // Receivers holding either the current or the old secret accept it; the expired one does not sign.
    for (const secret of [current, old]) {
      expect(() => new Webhook(secret).verify(call.body, call.headers), secret).not.toThrow();
    }
    expect(() => new Webhook(expired).verify(call.body, call.headers)).toThrow();
    const ts = call.headers['webhook-timestamp'];
    expect(call.headers['X-Service-Signature']).toBe(`t=${ts},v1=${createHmac('sha256', current).update(`${ts}.${call.body}`).digest('hex')}`);
  });

  it('clears failingSince and sets lastDeliveredAt on the next success; a 3xx is a failure', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [302, new Error('connect ECONNREFUSED'), 200]);
    const { deliveryId } = await fanOutEvent(subscription, queue);
    const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer };

    expect(await drain(deps, sent.splice(0, 1))).toEqual(['retry']);
    expect((await store.subscription(org.orgId, subscription.id))!.failingSince).toBe(new Date(calls[0]!.at).toISOString());
    expect(await store.get(deliveryId)).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 302 });

    const outcomes = await drain(deps, sent);
    expect(outcomes).toEqual(['retry', 'delivered']); // 5 minutes: within one SQS delay
    expect(calls).toHaveLength(3);
    const after = await store.subscription(org.orgId, subscription.id);
    expect(after!.failingSince).toBeNull();
    expect(after!.lastDeliveredAt).toBe(new Date(calls[2]!.at).toISOString());
    expect(await store.get(deliveryId)).toMatchObject({ status: 'delivered', attempts: 3, lastStatus: 200 });
  });

  it('hops a message that arrives early without attempting, and the sweep re-drives a lost message (all pending ones at a local start)', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [503, 200]);
    const { deliveryId } = await fanOutEvent(subscription, queue);
    const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer };
    await drain(deps, sent.splice(0, 1)); // first attempt fails: a retry in a minute
    expect(sent).toHaveLength(1);

    // Early (a duplicate right away): re-enqueued for the remainder, no attempt.
    expect(await deliverOne(deps, deliveryId)).toBe('hop');
    expect(sent.at(-1)).toMatchObject({ deliveryId, delaySeconds: 60 });
    expect(calls).toHaveLength(1);

    // As the local runtime does at start (its in-memory queue lost everything): every pending
    // delivery is enqueued again, due or not; this one, not due yet, only hops.
    const sweep = createSweep({ clock, logger: quietLogger, deliveries: store, queue });
    sent.length = 0;
    expect((await sweep({ allPending: true })).requeued).toBeGreaterThanOrEqual(1);
    expect(sent.map((message) => message.deliveryId)).toContain(deliveryId);
    expect(await deliverOne(deps, deliveryId)).toBe('hop');
    expect(calls).toHaveLength(1);

    // Both messages lost: the sweep finds the delivery once it is past due.
    sent.length = 0;
    clock.advance(30_000);
    expect((await sweep()).requeued).toBe(0);
    clock.advance(2 * 60_000);
    await sweep();
    expect(sent.map((message) => message.deliveryId)).toContain(deliveryId);
    // Grouped by its subscription, as the fan-out's message was (core/delivery-lanes.ts).
    expect(sent.find((message) => message.deliveryId === deliveryId)!.route).toEqual({ lane: 'fast', group: subscription.id });
    expect(await drain(deps, sent.filter((message) => message.deliveryId === deliveryId))).toEqual(['delivered']);
    // A duplicate message is harmless.
    expect(await deliverOne(deps, deliveryId)).toBe('finished');
    expect(calls).toHaveLength(2);
  });

  it('opens the sealed secrets before claiming an attempt: a secret that does not open (sealed for another subscription) uses up no attempt', async () => {
    const subscription = await putSubscription(service, org.orgId);
    // The same item with its secret sealed for a different subscription: its context (the AAD) does not match.
    const elsewhere = await service.deps.sealer.seal(subscription.secrets[0]!.secret, webhookSecretContext(org.orgId, newId()));
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: { pk: `ORG#${org.orgId}`, sk: `WEBHOOK#${subscription.id}` },
        UpdateExpression: 'SET secrets = :secrets',
        ExpressionAttributeValues: { ':secrets': [{ sealed: elsewhere, expiresAt: null }] },
      }),
    );
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [204]);
    const { deliveryId } = await fanOutEvent(subscription, queue);
    expect(sent).toHaveLength(1);
    await expect(deliverOne({ clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer }, deliveryId)).rejects.toThrow();
    expect(calls).toHaveLength(0);
    expect(await store.get(deliveryId)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('cancels the delivery of a subscription that went away', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [200]);
    const { deliveryId } = await fanOutEvent(subscription, queue);
    await putSubscription(service, org.orgId, { ...subscription, isActive: false });
    expect(await drain({ clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer }, sent)).toEqual(['cancelled']);
    expect(calls).toHaveLength(0);
    expect((await store.get(deliveryId))!.status).toBe('cancelled');
  });
});
