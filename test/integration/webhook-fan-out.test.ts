/**
 * The fan-out against DynamoDB Local: every record of a batch processed, a failing one reported
 * alone as a batch item failure, one delivery per matching subscription, idempotent on a
 * redelivered record.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import type { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { createHandler as createFanOut, type FanOutDeps } from '../../lambdas/workers/fan-out.ts';
import { movableClock, putSubscription, recordingQueue, startDeliveryTestbed } from '../support/webhooks.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;
const quietLogger = { info: () => undefined, error: () => undefined, debug: () => undefined };

beforeAll(async () => ({ service, org, store } = await startDeliveryTestbed({ clock })));
afterAll(async () => {
  await service?.stop();
});

let seq = 1000;
/** The entries the records name, as the table would hold them: the fan-out reads each by its record's keys. */
const stored = new Map<string, Record<string, unknown>>();
const auditItems: FanOutDeps['auditItems'] = { get: async (key) => stored.get(`${key.pk} ${key.sk}`) ?? null };
/** A stream record (keys only, as the table's stream holds) of an item stored for it. */
const insertOf = (item: Record<string, unknown> & { pk: string; sk: string }, eventID: string): DynamoDBRecord => {
  stored.set(`${item.pk} ${item.sk}`, item);
  return { eventID, eventName: 'INSERT', dynamodb: { SequenceNumber: String(seq).padStart(21, '0'), Keys: marshall({ pk: item.pk, sk: item.sk }) as never } };
};
const auditRecord = (orgId: string, type: string, clientId: string | null, overrides: Record<string, unknown> = {}): DynamoDBRecord => {
  seq++;
  const item = { pk: `AUDIT#${orgId}`, sk: `SEQ#${String(seq).padStart(12, '0')}`, kind: 'audit', orgId, seq, type, occurredAt: clock.now().toISOString(), clientId, requestId: null, actor: { type: 'api', label: null }, data: {}, ...overrides };
  return insertOf(item, `evt-${seq}`);
};
const seqOf = (record: DynamoDBRecord) => Number(record.dynamodb!.SequenceNumber);

describe('fan-out', () => {
  it('writes one delivery per matching subscription, processes every record, and reports only the failed one', async () => {
    const all = await putSubscription(service, org.orgId, { events: ['request.created', 'request.completed'] });
    const ofClient = await putSubscription(service, org.orgId, { events: ['request.created'], clientId: org.defaultClientId });
    await putSubscription(service, org.orgId, { events: ['request.created'], clientId: newId() }); // another client
    await putSubscription(service, org.orgId, { events: ['request.created'], isActive: false });
    await putSubscription(service, org.orgId, { events: ['request.revoked'] });
    const { sent, queue } = recordingQueue(clock);
    const brokenOrg = newId();
    const deps: FanOutDeps = {
      clock,
      logger: quietLogger,
      deliveries: store,
      webhooks: {
        listForOrg: async (orgId) => {
          if (orgId === brokenOrg) throw new Error('storage trouble');
          return service.deps.webhooks.listForOrg(orgId);
        },
      },
      organisations: service.deps.directory,
      queue,
      auditItems,
    };
    const created = auditRecord(org.orgId, 'request.created', org.defaultClientId);
    const broken = auditRecord(brokenOrg, 'request.created', null);
    const completed = auditRecord(org.orgId, 'request.completed', org.defaultClientId);
    const records = [
      created,
      broken,
      auditRecord(org.orgId, 'webhook.created', null), // not an event type
      auditRecord(org.orgId, 'ping', null), // never fanned out
      { ...auditRecord(org.orgId, 'request.created', null), eventName: 'MODIFY' as const },
      insertOf({ pk: 'REQ#x', sk: 'REQ', kind: 'request' }, 'not-audit'),
      completed,
    ];

    const result = await createFanOut(deps)({ Records: records });

    // A stream record is named by its sequence number (Lambda checkpoints before the lowest).
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: broken.dynamodb!.SequenceNumber }]);
    const deliveries = await Promise.all(sent.map((message) => store.get(message.deliveryId)));
    const summary = deliveries.map((d) => `${d!.webhookId} ${d!.eventType}`).sort();
    expect(summary).toEqual([`${all.id} request.created`, `${ofClient.id} request.created`, `${all.id} request.completed`].sort());
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ orgId: org.orgId, attempts: 0, status: 'pending', nextAttemptAt: clock.now().toISOString() });
      expect(delivery!.id).toMatch(/^[0-9a-z]{26}$/);
      expect(delivery!.webhookMessageId).toMatch(/^[0-9a-z]{26}$/);
    }
    expect(sent.every((message) => message.delaySeconds === 0)).toBe(true);

    // Redelivered (the whole batch again, as a retry does): nothing new, the same webhook-ids.
    const before = new Map(deliveries.map((d) => [d!.id, d!.webhookMessageId]));
    sent.length = 0;
    const again = await createFanOut(deps)({ Records: records });
    expect(again.batchItemFailures).toEqual([{ itemIdentifier: broken.dynamodb!.SequenceNumber }]);
    expect(sent).toEqual([]);
    for (const [id, messageId] of before) expect((await store.get(id))!.webhookMessageId).toBe(messageId);
  });

  it('leaves out a subscription created after the event occurred (a stream read again from further back)', async () => {
    const occurredAt = clock.now().toISOString();
    const older = await putSubscription(service, org.orgId, { events: ['member.disabled'], createdAt: new Date(Date.parse(occurredAt) - 1000).toISOString() });
    const sameInstant = await putSubscription(service, org.orgId, { events: ['member.disabled'], createdAt: occurredAt });
    await putSubscription(service, org.orgId, { events: ['member.disabled'], createdAt: new Date(Date.parse(occurredAt) + 1).toISOString() });
    const { sent, queue } = recordingQueue(clock);
    const deps: FanOutDeps = { clock, logger: quietLogger, deliveries: store, webhooks: service.deps.webhooks, organisations: service.deps.directory, queue, auditItems };

    await createFanOut(deps)({ Records: [auditRecord(org.orgId, 'member.disabled', null, { occurredAt })] });

    const targets = await Promise.all(sent.map(async (message) => (await store.get(message.deliveryId))!.webhookId));
    expect(targets.sort()).toEqual([older.id, sameInstant.id].sort());
  });

  it("reads an organisation's subscriptions once per batch, however many of its records the batch holds", async () => {
    const subscription = await putSubscription(service, org.orgId, { events: ['request.expired'] });
    const { sent, queue } = recordingQueue(clock);
    const asked: string[] = [];
    const webhooks = { listForOrg: (orgId: string) => (asked.push(orgId), service.deps.webhooks.listForOrg(orgId)) };
    const records = Array.from({ length: 12 }, () => auditRecord(org.orgId, 'request.expired', null));

    const result = await createFanOut({ clock, logger: quietLogger, deliveries: store, webhooks, organisations: service.deps.directory, queue, auditItems })({ Records: records });

    expect(result.batchItemFailures).toEqual([]);
    expect(asked).toEqual([org.orgId]);
    const deliveries = await Promise.all(sent.map((message) => store.get(message.deliveryId)));
    expect(deliveries.map((d) => `${d!.webhookId} ${d!.eventSeq}`).sort()).toEqual(
      records.map((r) => `${subscription.id} ${seqOf(r)}`).sort(),
    );
  });

  it("sends nothing for an organisation whose plan lacks outbound webhooks; its subscriptions send again once it upgrades", async () => {
    const downgraded = await service.createOrganisation({ name: 'Downgraded Org' });
    const subscription = await putSubscription(service, downgraded.orgId, { events: ['request.expired'] });
    const deps = (queue: FanOutDeps['queue']): FanOutDeps => ({ clock, logger: quietLogger, deliveries: store, webhooks: service.deps.webhooks, organisations: service.deps.directory, queue, auditItems });

    await service.admin.setPlan(downgraded.orgId, 'free');
    const onFree = recordingQueue(clock);
    const refused = await createFanOut(deps(onFree.queue))({ Records: [auditRecord(downgraded.orgId, 'request.expired', null)] });
    expect(refused.batchItemFailures).toEqual([]);
    expect(onFree.sent).toEqual([]);

    await service.admin.setPlan(downgraded.orgId, 'team');
    const onTeam = recordingQueue(clock);
    await createFanOut(deps(onTeam.queue))({ Records: [auditRecord(downgraded.orgId, 'request.expired', null)] });
    expect(onTeam.sent).toHaveLength(1);
    expect((await store.get(onTeam.sent[0].deliveryId))!.webhookId).toBe(subscription.id);
  });
});
