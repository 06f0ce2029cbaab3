import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock } from '#core/clock.ts';
import { forEachLimited } from '#core/each-limited.ts';
import { routeOf } from '#core/delivery-lanes.ts';
import { isEventType } from '#core/events.ts';
import type { DeliveryQueue } from '#core/ports.ts';
import { deliveryIdFor, pendingDelivery, type DeliveryStore, type WebhookTarget } from '#store/deliveries.ts';
import type { AppDeps } from '../app-deps.ts';
import { webhookWiring } from './webhook-wiring.ts';

export interface FanOutDeps {
  clock: Clock;
  logger: Pick<AppDeps['logger'], 'info' | 'error' | 'debug'>;
  deliveries: Pick<DeliveryStore, 'create'>;
  /** The organisation's webhook subscriptions. */
  webhooks: { listForOrg(orgId: string): Promise<WebhookTarget[]> };
  queue: DeliveryQueue;
}

type StreamImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/**
 * The few top-level attributes the fan-out needs, read straight from the stream image (strings,
 * numbers, NULL); the rest of the entry (its data map) is left alone: the worker reads the stored
 * entry when it delivers.
 */
const readImage = (image: StreamImage) => {
  const text = (name: string) => (typeof image[name]?.S === 'string' ? image[name].S : undefined);
  const number = (name: string) => (typeof image[name]?.N === 'string' ? Number(image[name].N) : undefined);
  // A ping's or manual redelivery's entry names the one delivery written with it (webhook-actions.ts).
  const namedDelivery = image.data?.M?.details?.M?.delivery_id?.S;
  return {
    kind: text('kind'),
    orgId: text('orgId'),
    seq: number('seq'),
    type: text('type'),
    occurredAt: text('occurredAt'),
    clientId: text('clientId'),
    namedDelivery: typeof namedDelivery === 'string' ? namedDelivery : undefined,
  };
};

/** The entries that come with their own delivery (a test ping, a manual redelivery) instead of one per subscriber. */
const WITH_OWN_DELIVERY = new Set(['ping', 'webhook.redelivered']);

/**
 * The subscriptions an event goes to: active, subscribed to the type, of its client (or of none),
 * and subscribed by the time it occurred: a stream replayed from further back (the local poller
 * after a restart) must not send a new subscription the events from before it existed.
 */
export const subscribersOf = (subscriptions: WebhookTarget[], type: string, clientId: string | null, occurredAt: string) =>
  subscriptions.filter(
    (s) =>
      s.isActive &&
      Array.isArray(s.events) &&
      s.events.includes(type) &&
      (s.clientId === null || s.clientId === undefined || s.clientId === clientId) &&
      (typeof s.createdAt !== 'string' || s.createdAt <= occurredAt),
  );

/** Records (and a record's deliveries) handled at once: their storage calls overlap. */
const CONCURRENCY = 8;

type SubscriptionsOf = (orgId: string) => Promise<WebhookTarget[]>;

/** Handles one stream record; returns how many deliveries it created. */
const fanOutRecord = async (deps: FanOutDeps, subscriptionsOf: SubscriptionsOf, record: DynamoDBRecord): Promise<number> => {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return 0;
  const image = readImage(record.dynamodb.NewImage);
  if (image.kind === 'audit' && WITH_OWN_DELIVERY.has(image.type ?? '')) {
    // Its delivery was written with it: sent to the worker, whose claim makes a second message
    // (the operator's CLI also attempts it at once) harmless.
    if (image.namedDelivery) await deps.queue.send(image.namedDelivery, 0);
    return 0;
  }
  if (image.kind !== 'audit' || typeof image.type !== 'string' || !isEventType(image.type) || image.type === 'ping') return 0;
  if (typeof image.orgId !== 'string' || typeof image.seq !== 'number' || !Number.isSafeInteger(image.seq)) return 0;
  const clientId = typeof image.clientId === 'string' ? image.clientId : null;
  const occurredAt = typeof image.occurredAt === 'string' ? image.occurredAt : deps.clock.now().toISOString();
  const { orgId, seq, type } = image;
  const targets = subscribersOf(await subscriptionsOf(orgId), type, clientId, occurredAt);
  let created = 0;
  await forEachLimited(targets, CONCURRENCY, async (target) => {
    const delivery = pendingDelivery(
      { id: deliveryIdFor(target.id, seq, occurredAt), webhookId: target.id, orgId, clientId, eventSeq: seq, eventType: type },
      deps.clock.now().toISOString(),
    );
    // A redelivered stream record finds the delivery already there: no second one, no second message
    // (if the first run died between the put and the send, the delivery sweep sends it).
    if (!(await deps.deliveries.create(delivery))) return;
    await deps.queue.send(delivery.id, 0, routeOf(target));
    created++;
  });
  return created;
};

/**
 * The webhook fan-out, fed by the table's stream (filtered deployed to new audit items; locally
 * by the stream poller). For each new audit entry of an event type it writes one delivery per
 * matching subscription and enqueues it. An organisation's subscriptions are read once per
 * batch, and records are handled several at a time (deliveries need no order: each is its own
 * message, and receivers de-duplicate on the event id). Every record is processed; those that
 * failed are returned as batch item failures by sequence number: Lambda retries from the lowest,
 * and the records after it that had succeeded find their deliveries already there.
 */
export const createHandler = (deps: FanOutDeps) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
    const read = new Map<string, Promise<WebhookTarget[]>>();
    const subscriptionsOf: SubscriptionsOf = (orgId) => {
      if (!read.has(orgId)) read.set(orgId, deps.webhooks.listForOrg(orgId));
      return read.get(orgId)!;
    };
    let created = 0;
    await forEachLimited(event.Records ?? [], CONCURRENCY, async (record) => {
      try {
        created += await fanOutRecord(deps, subscriptionsOf, record);
      } catch (error) {
        deps.logger.error('fan-out failed for a stream record', { eventID: record.eventID, errorName: (error as Error)?.name });
        // A stream source names a failed record by its sequence number (Lambda checkpoints before
        // the lowest one). Without one, an empty identifier makes Lambda retry the whole batch.
        batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      }
    });
    if (created > 0) deps.logger.info('webhook deliveries created', { created });
    return { batchItemFailures };
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: DynamoDBStreamEvent) => (built ??= createHandler(webhookWiring()))(event);
