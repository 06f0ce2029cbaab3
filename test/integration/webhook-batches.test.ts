/**
 * The webhook pipeline's table calls per event against DynamoDB Local: the fan-out writes a
 * batch's deliveries several to a transaction (and never one twice: a redelivered batch creates
 * and sends nothing, a partly made one only what is missing), one delivery's trouble stays its
 * own, and the delivery worker reads a batch of deliveries, their subscriptions and their events
 * in two calls and writes their outcomes in one. A backlog's events cost at most three table calls each.
 */
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { DeliveryStore, pendingDelivery, type Delivery } from '../../lambdas/store/deliveries.ts';
import { createDeliveries, DELIVERIES_PER_TRANSACTION } from '../../lambdas/store/delivery-creation.ts';
import type { Documents } from '../../lambdas/store/dynamo.ts';
import { createHandler as createDeliver } from '../../lambdas/workers/deliver.ts';
import { createHandler as createFanOut, type FanOutDeps } from '../../lambdas/workers/fan-out.ts';
import { auditInsertRecord } from '../../lambdas/workers/stream-record.ts';
import { tableCallsDuring } from '../support/table-calls.ts';
import { deliveryStoreOf, movableClock, putSubscription, quietLogger, recordingQueue, scriptedHttp, storedAuditItems } from '../support/webhooks.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

const clock = movableClock();
let service: TestService;
let store: DeliveryStore;

beforeAll(async () => {
  service = await startTestService({ clock });
  store = deliveryStoreOf(service);
});
afterAll(() => service?.stop());

/** A new organisation subscribed once to request.created, and `count` of its request.created entries as their stream records. */
const subscribedEvents = async (count: number) => {
  const org = await service.createOrganisation();
  const subscription = await putSubscription(service, org.orgId, { events: ['request.created'] });
  const records: DynamoDBRecord[] = [];
  for (let i = 0; i < count; i++) {
    const entry = await service.deps.audit.record({ orgId: org.orgId, type: 'request.created', actor: { type: 'api', label: 'Helpdesk' }, clientId: org.defaultClientId, requestId: null, data: { details: {} } });
    records.push(auditInsertRecord(entry));
  }
  return { org, subscription, records };
};

const fanOutWith = (queue: FanOutDeps['queue'], deliveries: FanOutDeps['deliveries'] = store) =>
  service.asWorker('fanOut', createFanOut({ clock, logger: quietLogger, deliveries, webhooks: service.deps.webhooks, organisations: service.deps.directory, queue, ...storedAuditItems(service) }));

const sqsRecord = (deliveryId: string): SQSRecord => ({ messageId: newId(), body: JSON.stringify({ deliveryId, lane: 'fast' }) }) as SQSRecord;

describe('the fan-out', () => {
  it(`writes a batch's deliveries ${DELIVERIES_PER_TRANSACTION} to a transaction; the batch again creates and sends nothing`, async () => {
    const { records } = await subscribedEvents(30);
    const { sent, queue } = recordingQueue(clock);
    const calls = await tableCallsDuring(service.deps.db, () => fanOutWith(queue)({ Records: records }));
    // The 30 entries the records name in one read, the organisation (its plan) and its
    // subscriptions side by side, then two transactions.
    expect(calls).toEqual(['BatchGetItem', ...calls.slice(1, 3), 'TransactWriteItems', 'TransactWriteItems']);
    expect(calls.slice(1, 3).sort()).toEqual(['GetItem', 'Query']);
    expect(new Set(sent.map((message) => message.deliveryId)).size).toBe(30);

    sent.length = 0;
    const again = await fanOutWith(queue)({ Records: records });
    expect(again.batchItemFailures).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('a transaction some of whose deliveries exist is tried again without them: only the missing are created and sent', async () => {
    const { records } = await subscribedEvents(30);
    const first = recordingQueue(clock);
    await fanOutWith(first.queue)({ Records: records.slice(0, 10) });
    const { sent, queue } = recordingQueue(clock);
    const result = await fanOutWith(queue)({ Records: records });
    expect(result.batchItemFailures).toEqual([]);
    const made = new Set(first.sent.map((message) => message.deliveryId));
    expect(sent).toHaveLength(20);
    expect(sent.filter((message) => made.has(message.deliveryId))).toEqual([]);
    for (const message of sent) expect(await store.get(message.deliveryId)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it("reports only the record whose delivery could not be stored", async () => {
    const { records } = await subscribedEvents(3);
    const { sent, queue } = recordingQueue(clock);
    const broken = records[1]!;
    const brokenSeq = Number(broken.dynamodb!.SequenceNumber);
    const deliveries: FanOutDeps['deliveries'] = {
      createAll: async (all) => ({
        created: all.filter((delivery) => delivery.eventSeq !== brokenSeq),
        failed: all.filter((delivery) => delivery.eventSeq === brokenSeq).map((delivery) => ({ delivery, error: new Error('storage trouble') })),
      }),
    };
    const result = await fanOutWith(queue, deliveries)({ Records: records });
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: broken.dynamodb!.SequenceNumber }]);
    expect(sent).toHaveLength(2);
  });
});

describe('creating deliveries', () => {
  const deliveryOf = (webhookId: string, eventSeq: number): Delivery =>
    pendingDelivery({ id: newId(), webhookId, orgId: newId(), clientId: null, eventSeq, eventType: 'request.created' }, clock.now().toISOString());

  it('puts them one at a time when their transaction is refused for another reason; only the failing one is failed', async () => {
    const deliveries = Array.from({ length: 4 }, (_, i) => deliveryOf(newId(), i));
    const bad = deliveries[2]!;
    const sentCommands: string[] = [];
    // The table refuses the transaction as a whole (too large, say) and one of the puts.
    const db = {
      send: async (command: unknown) => {
        sentCommands.push((command as object).constructor.name);
        if (command instanceof TransactWriteCommand) throw Object.assign(new Error('refused'), { name: 'ValidationException' });
        if (command instanceof PutCommand && command.input.Item?.id === bad.id) throw Object.assign(new Error('refused'), { name: 'InternalServerError' });
        return {};
      },
    } as unknown as Documents;
    const outcome = await createDeliveries(db, service.deps.tableName, deliveries);
    expect(outcome.created.map((delivery) => delivery.id).sort()).toEqual(deliveries.filter((delivery) => delivery !== bad).map((delivery) => delivery.id).sort());
    expect(outcome.failed.map(({ delivery }) => delivery.id)).toEqual([bad.id]);
    expect(sentCommands).toEqual(['TransactWriteCommand', 'PutCommand', 'PutCommand', 'PutCommand', 'PutCommand']);
  });
});

describe('the delivery worker', () => {
  it('reads a batch of ten deliveries in a few BatchGetItem calls and writes their outcomes in one transaction', async () => {
    const { org, subscription: { id: subscriptionId }, records } = await subscribedEvents(10);
    const { sent, queue } = recordingQueue(clock);
    const fanOutCalls = await tableCallsDuring(service.deps.db, () => fanOutWith(queue)({ Records: records }));
    const { calls: posts, http } = scriptedHttp(clock, [200]);
    const deliver = service.asWorker('deliver', createDeliver({ clock, logger: quietLogger, deliveries: store, queue, http, sealer: service.deps.sealer, readBatching: service.deps.readBatching }));

    let answer: Awaited<ReturnType<typeof deliver>> | undefined;
    const deliverCalls = await tableCallsDuring(service.deps.db, async () => (answer = await deliver({ Records: sent.map((message) => sqsRecord(message.deliveryId)) })));

    expect(answer!.batchItemFailures).toEqual([]);
    expect(posts).toHaveLength(10);
    const counted = (name: string) => deliverCalls.filter((call) => call === name).length;
    expect({ claims: counted('UpdateItem'), outcomes: counted('TransactWriteItems') }).toEqual({ claims: 10, outcomes: 1 });
    // Two before the claims (deliveries, subscription and events), and the subscription read again
    // once the attempts are claimed (a delete or rotation answered meanwhile holds): batched too.
    // Two batch reads before the claims; after them each subscription is read again, at most one
    // read per delivery (batched when claims end together), so a delete or rotation answered meanwhile holds.
    expect(deliverCalls.slice(0, 2)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(deliverCalls.length).toBeGreaterThanOrEqual(14);
    expect(deliverCalls.length).toBeLessThanOrEqual(23);
    expect((fanOutCalls.length + deliverCalls.length) / 10).toBeLessThanOrEqual(3);
    for (const message of sent) expect(await store.get(message.deliveryId)).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 });
    const subscription = await store.subscription(org.orgId, subscriptionId);
    expect(subscription).toMatchObject({ lastDeliveredAt: clock.now().toISOString(), failingSince: null });
  });

  it('outcomes that cannot go together (one attempt stale) are written each alone: the stale one changes nothing', async () => {
    const { org, subscription, records } = await subscribedEvents(3);
    const { sent, queue } = recordingQueue(clock);
    await fanOutWith(queue)({ Records: records });
    const nowIso = clock.now().toISOString();
    const claimed = await Promise.all(
      sent.map(async (message) => {
        const delivery = (await store.get(message.deliveryId))!;
        expect(await store.claim(delivery, nowIso, nowIso)).toBe(true);
        return { ...delivery, attempts: delivery.attempts + 1 };
      }),
    );
    const stale = { ...claimed[1]!, attempts: 7 };
    const recorded = await store.deliveredTogether([claimed[0]!, stale, claimed[2]!].map((delivery) => ({ claimed: delivery, status: 204, nowIso, answeredQuickly: true })));
    expect(recorded).toEqual([true, false, true]);
    expect((await Promise.all(claimed.map((delivery) => store.get(delivery.id)))).map((delivery) => delivery!.status)).toEqual(['delivered', 'pending', 'delivered']);
    expect((await store.subscription(org.orgId, subscription.id))!.lastDeliveredAt).toBe(nowIso);
  });
});
