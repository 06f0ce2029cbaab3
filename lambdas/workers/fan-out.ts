import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock } from '#core/clock.ts';
import { forEachLimited } from '#core/each-limited.ts';
import { routeOf } from '#core/delivery-lanes.ts';
import { isEventType } from '#core/events.ts';
import type { Organisation } from '#core/model.ts';
import { planIncludes } from '#core/plans.ts';
import type { DeliveryQueue } from '#core/ports.ts';
import { deliveryIdFor, pendingDelivery, type Delivery, type DeliveryStore, type WebhookTarget } from '#store/deliveries.ts';
import type { ReadBatching } from '#store/coalesced-reads.ts';
import { DELIVERIES_PER_TRANSACTION } from '#store/delivery-creation.ts';
import type { ItemKey } from '#store/keys.ts';
import type { AppDeps } from '../app-deps.ts';
import { webhookWiring } from './webhook-wiring.ts';

export interface FanOutDeps {
  clock: Clock;
  logger: Pick<AppDeps['logger'], 'info' | 'error' | 'debug'>;
  deliveries: Pick<DeliveryStore, 'createAll'>;
  /** The organisation's webhook subscriptions. */
  webhooks: { listForOrg(orgId: string): Promise<WebhookTarget[]> };
  /** The organisation, whose plan says whether its events are sent at all (core/plans.ts). */
  organisations: { getOrganisation(orgId: string): Promise<Pick<Organisation, 'plan'> | null> };
  queue: DeliveryQueue;
  /** The audit entries the stream names by their keys (it holds keys only: store/table.ts). */
  auditItems: { get(key: ItemKey): Promise<Record<string, unknown> | null> };
  /** Batches the entry reads a stream batch starts together into one BatchGetItem. */
  readBatching?: ReadBatching;
}

/**
 * The stored entry a record names, read by the record's keys, consistently: the stream holds keys
 * only (an image a record might carry is not trusted to be the stored entry), and the entry is
 * committed before its record exists.
 */
const entryOf = async (deps: FanOutDeps, record: DynamoDBRecord): Promise<Record<string, unknown> | null> => {
  const pk = record.dynamodb?.Keys?.pk?.S;
  const sk = record.dynamodb?.Keys?.sk?.S;
  return typeof pk === 'string' && typeof sk === 'string' ? deps.auditItems.get({ pk, sk }) : null;
};

/**
 * The few top-level attributes the fan-out needs (strings, numbers); the rest of the entry (its
 * data map) is left alone: the worker reads the stored entry when it delivers.
 */
const readEntry = (item: Record<string, unknown>) => {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : undefined);
  const number = (name: string) => (typeof item[name] === 'number' ? (item[name] as number) : undefined);
  // A ping's or manual redelivery's entry names the one delivery written with it, and its subscription (webhook-actions.ts).
  const details = (item.data as { details?: { delivery_id?: unknown; webhook_id?: unknown } } | undefined)?.details;
  const namedDelivery = details?.delivery_id;
  const namedWebhook = details?.webhook_id;
  return {
    kind: text('kind'),
    orgId: text('orgId'),
    seq: number('seq'),
    type: text('type'),
    occurredAt: text('occurredAt'),
    clientId: text('clientId'),
    namedDelivery: typeof namedDelivery === 'string' ? namedDelivery : undefined,
    namedWebhook: typeof namedWebhook === 'string' ? namedWebhook : undefined,
  };
};

/** The entries that come with their own delivery (a test ping, a manual redelivery) instead of one per subscriber. */
const WITH_OWN_DELIVERY = new Set(['ping', 'webhook.redelivered']);

/**
 * Whether the subscription existed when the event happened: its `webhook.created` entry comes
 * before the event in the organisation's audit order. An event committed while the subscription
 * was being stored, or by an instance whose clock is behind, is judged by that order, not by
 * times taken on different clocks. A subscription stored before its entry's number was kept is
 * judged by its time.
 */
const subscribedBefore = (s: WebhookTarget, seq: number, occurredAt: string) =>
  typeof s.createdSeq === 'number' ? s.createdSeq < seq : typeof s.createdAt !== 'string' || s.createdAt <= occurredAt;

/**
 * The subscriptions an event goes to: active, subscribed to the type, of its client (or of none),
 * and subscribed before it (subscribedBefore): a stream replayed from further back (the local
 * poller after a restart) must not send a new subscription the events from before it existed.
 */
export const subscribersOf = (subscriptions: WebhookTarget[], type: string, clientId: string | null, seq: number, occurredAt: string) =>
  subscriptions.filter(
    (s) =>
      s.isActive &&
      Array.isArray(s.events) &&
      s.events.includes(type) &&
      (s.clientId === null || s.clientId === undefined || s.clientId === clientId) &&
      subscribedBefore(s, seq, occurredAt),
  );

/** Records read at once (their organisations' subscriptions are read once per batch). */
const CONCURRENCY = 8;
/** Transactions of new deliveries in flight at once: each one's deliveries are sent as it commits. */
const TRANSACTIONS_AT_ONCE = 2;

type SubscriptionsOf = (orgId: string) => Promise<WebhookTarget[]>;

/** A delivery one record asks for, with the subscription it goes to. */
interface Planned {
  record: DynamoDBRecord;
  delivery: Delivery;
  target: WebhookTarget;
}

/** The deliveries a stream record asks for: one per matching subscription (a record with its own delivery sends it at once instead). */
const plan = async (deps: FanOutDeps, subscriptionsOf: SubscriptionsOf, record: DynamoDBRecord, item: Record<string, unknown> | null): Promise<Planned[]> => {
  if (record.eventName !== 'INSERT' || !item) return [];
  const entry = readEntry(item);
  if (entry.kind === 'audit' && WITH_OWN_DELIVERY.has(entry.type ?? '')) {
    // Its delivery was written with it: sent to the worker, whose claim makes a second message
    // (the operator's CLI also attempts it at once) harmless. Grouped by its subscription like
    // every other delivery, so that the fair queue weighs it with that subscription's backlog; the
    // fast lane, as the entry does not say whether the subscription is slow (the worker moves it on if so).
    if (entry.namedDelivery) await deps.queue.send(entry.namedDelivery, 0, entry.namedWebhook ? routeOf({ id: entry.namedWebhook }) : undefined);
    return [];
  }
  if (entry.kind !== 'audit' || typeof entry.type !== 'string' || !isEventType(entry.type) || entry.type === 'ping') return [];
  if (typeof entry.orgId !== 'string' || typeof entry.seq !== 'number' || !Number.isSafeInteger(entry.seq)) return [];
  const clientId = typeof entry.clientId === 'string' ? entry.clientId : null;
  const occurredAt = typeof entry.occurredAt === 'string' ? entry.occurredAt : deps.clock.now().toISOString();
  const { orgId, seq, type } = entry;
  return subscribersOf(await subscriptionsOf(orgId), type, clientId, seq, occurredAt).map((target) => ({
    record,
    target,
    delivery: pendingDelivery(
      { id: deliveryIdFor(target.id, seq, occurredAt), webhookId: target.id, orgId, clientId, eventSeq: seq, eventType: type },
      deps.clock.now().toISOString(),
    ),
  }));
};

/**
 * An organisation's subscriptions, read beside the organisation: none when its plan does not
 * include outbound webhooks (a downgrade keeps them stored, sending nothing until it upgrades) or
 * when it is gone.
 */
const sendingSubscriptions = async (deps: FanOutDeps, orgId: string) => {
  const [organisation, subscriptions] = await Promise.all([deps.organisations.getOrganisation(orgId), deps.webhooks.listForOrg(orgId)]);
  return organisation && planIncludes(organisation.plan, 'webhooks') ? subscriptions : [];
};

const chunksOf = <T>(items: T[], size: number) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * The webhook fan-out, fed by the table's stream (filtered deployed to new audit items; locally
 * by the stream poller). For each new audit entry of an event type it writes one delivery per
 * matching subscription and enqueues it. An organisation's subscriptions are read once per
 * batch, and the batch's deliveries are written several to a transaction
 * (store/delivery-creation.ts): a delivery costs a fraction of a table call, not one. Deliveries
 * need no order: each is its own message, and receivers de-duplicate on the event id. Every
 * record is processed; those that failed (their subscriptions unread, a delivery unstored or
 * unsent) are returned as batch item failures by sequence number: Lambda retries from the
 * lowest, and the records after it that had succeeded find their deliveries already there (one
 * stored but not sent is sent by the delivery sweep).
 */
export const createHandler = (deps: FanOutDeps) => {
  const handle = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const failed = new Set<DynamoDBRecord>();
    const fail = (record: DynamoDBRecord, error: unknown) => {
      if (failed.has(record)) return;
      failed.add(record);
      deps.logger.error('fan-out failed for a stream record', { eventID: record.eventID, errorName: (error as Error)?.name });
    };
    const read = new Map<string, Promise<WebhookTarget[]>>();
    const subscriptionsOf: SubscriptionsOf = (orgId) => {
      if (!read.has(orgId)) read.set(orgId, sendingSubscriptions(deps, orgId));
      return read.get(orgId)!;
    };
    const planned: Planned[] = [];
    const records = event.Records ?? [];
    // Every record's entry read at once: one BatchGetItem for the batch (readBatching), not a read each.
    const entries = new Map(
      await Promise.all(
        records.map(async (record) => {
          try {
            return [record, record.eventName === 'INSERT' ? await entryOf(deps, record) : null] as const;
          } catch (error) {
            fail(record, error);
            return [record, undefined] as const;
          }
        }),
      ),
    );
    await forEachLimited(records, CONCURRENCY, async (record) => {
      const entry = entries.get(record);
      if (entry === undefined) return;
      try {
        planned.push(...(await plan(deps, subscriptionsOf, record, entry)));
      } catch (error) {
        fail(record, error);
      }
    });
    let created = 0;
    await forEachLimited(chunksOf(planned, DELIVERIES_PER_TRANSACTION), TRANSACTIONS_AT_ONCE, async (chunk) => {
      const byId = new Map(chunk.map((entry) => [entry.delivery.id, entry]));
      const outcome = await deps.deliveries
        .createAll(chunk.map((entry) => entry.delivery))
        .catch((error: unknown) => ({ created: [], failed: chunk.map(({ delivery }) => ({ delivery, error })) }));
      for (const { delivery, error } of outcome.failed) fail(byId.get(delivery.id)!.record, error);
      // A delivery found there already (a redelivered record) gets no second message: the first
      // run sent it, or the delivery sweep will.
      await forEachLimited(outcome.created, CONCURRENCY, async (delivery) => {
        const { record, target } = byId.get(delivery.id)!;
        try {
          await deps.queue.send(delivery.id, 0, routeOf(target));
          created++;
        } catch (error) {
          fail(record, error);
        }
      });
    });
    if (created > 0) deps.logger.info('webhook deliveries created', { created });
    // A stream source names a failed record by its sequence number (Lambda checkpoints before the
    // lowest one). Without one, an empty identifier makes Lambda retry the whole batch.
    return { batchItemFailures: [...failed].map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })) };
  };
  // The entry reads of a batch's records start together: one BatchGetItem, not one read each.
  const reads = deps.readBatching;
  return (event: DynamoDBStreamEvent) => (reads ? reads.scope(() => handle(event)) : handle(event));
};

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: DynamoDBStreamEvent) => (built ??= createHandler(webhookWiring()))(event);
