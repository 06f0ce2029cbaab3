import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { encodeTime } from 'ulid';
import { WriteConflict } from '#core/errors.ts';
import { newId } from '#core/ids.ts';
import type { AuditEntry, AuditEntryInput } from '#core/ports.ts';
import type { WebhookSubscription } from '#core/webhooks.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import { cancellationCodes, isConditionFailure, type Documents } from './dynamo.ts';
import { fromItem } from './items.ts';
import { keys, type ItemKey } from './keys.ts';
import { INDEXES } from './table.ts';
import { createDeliveries } from './delivery-creation.ts';
import { DELIVERY_SHARDS, deliveryKey, dueSort, newDeliveryPut } from './delivery-keys.ts';
import { deliveredChange, deliveryOutcomeWrite, failingChange, healthyChange, subscriptionOutcomeWrite, type OutcomeChange } from './attempt-writes.ts';
import { recordDeliveredTogether, type DeliveredOutcome } from './delivered-together.ts';
import { webhookDeliveryPage, type DeliveryPage, type DeliveryPageQuery } from './webhook-delivery-pages.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One event's delivery to one webhook subscription; its state lives here, not in the queue. */
export interface Delivery {
  /** ULID, sent as X-Service-Delivery; derived from (webhook, event) so a redelivered stream record finds the same one. */
  id: string;
  webhookId: string;
  orgId: string;
  clientId: string | null;
  eventSeq: number;
  eventType: string;
  /** The `webhook-id` header: one per delivery, kept across automatic retries. */
  webhookMessageId: string;
  attempts: number;
  nextAttemptAt: string;
  status: DeliveryStatus;
  createdAt: string;
  lastAttemptAt: string | null;
  /** HTTP status of the last attempt, or null when no answer came. */
  lastStatus: number | null;
  /** Short reason of the last failed attempt (never a secret or body). */
  lastError: string | null;
  /** Set when the fast lane's budget ran out on it (core/delivery-lanes.ts): it stays in the slow lane. */
  movedToSlowLane?: boolean;
}

/**
 * What the delivery worker reads of a subscription (the item lambdas/store/webhooks.ts writes);
 * `createdAt` is optional so that tests can write bare subscriptions.
 */
export type WebhookTarget = Pick<WebhookSubscription, 'id' | 'orgId' | 'url' | 'events' | 'isActive' | 'clientId' | 'failingSince' | 'lastDeliveredAt' | 'secrets'> &
  Partial<Pick<WebhookSubscription, 'createdAt' | 'createdSeq' | 'slowSince'>>;

/**
 * A new delivery, due now, as the fan-out writes one for each subscriber: the operator's ping and
 * redelivery. `webhookMessageId` is fresh, so a manual redelivery has a `webhook-id` of its own.
 */
export const pendingDelivery = (fields: Pick<Delivery, 'id' | 'webhookId' | 'orgId' | 'clientId' | 'eventSeq' | 'eventType'>, nowIso: string): Delivery => ({
  ...fields,
  webhookMessageId: newId(),
  attempts: 0,
  nextAttemptAt: nowIso,
  status: 'pending',
  createdAt: nowIso,
  lastAttemptAt: null,
  lastStatus: null,
  lastError: null,
});

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/**
 * A lower-case ULID whose time is the event's and whose random part is a hash of (webhook, event):
 * the same pair always gives the same id, so the fan-out's conditional put is idempotent.
 */
export const deliveryIdFor = (webhookId: string, eventSeq: number, occurredAt: string) => {
  const digest = createHash('sha256').update(`${webhookId}#${eventSeq}`).digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 10)) bits = (bits << 8n) | BigInt(byte);
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  const time = Date.parse(occurredAt);
  return `${encodeTime(Number.isNaN(time) ? 0 : time, 10).toLowerCase()}${random}`;
};

/**
 * Webhook deliveries in the single table: `DELIVERY#<id>` / `DELIVERY`, and while pending, in the
 * byDelivery index under `DELIVERY_DUE#<shard>` ordered by next attempt time.
 */
export class DeliveryStore {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: Pick<AuditLog, 'append'>,
  ) {}

  /**
   * Stores new deliveries, several to a transaction (delivery-creation.ts); answers those created
   * (one that exists already, from a redelivered stream record, is left as it is) and those that
   * could not be stored, each with its error.
   */
  createAll(deliveries: Delivery[]) {
    return createDeliveries(this.db, this.tableName, deliveries);
  }

  /**
   * Appends `input` to the audit chain and stores the delivery `deliveryOf` makes from the new
   * entry, in one transaction: the operator's ping (whose delivery is of that very entry, so it
   * needs its sequence number) and manual redelivery (audited as `webhook.redelivered`).
   */
  async createWithEntry(input: AuditEntryInput, deliveryOf: (entry: AuditEntry) => Delivery): Promise<{ entry: AuditEntry; delivery: Delivery }> {
    let delivery: Delivery | undefined;
    const entry = await this.audit.append(input, ([appended]) => {
      delivery = deliveryOf(appended!);
      // Its subscription still there and active: a delete that answered first wins (WriteConflict).
      const subscriptionActive: TransactItem = {
        ConditionCheck: {
          TableName: this.tableName,
          Key: keys.webhook(delivery.orgId, delivery.webhookId),
          ConditionExpression: 'isActive = :active',
          ExpressionAttributeValues: { ':active': true },
        },
      };
      return [{ Put: newDeliveryPut(this.tableName, delivery) }, subscriptionActive];
    });
    return { entry, delivery: delivery! };
  }

  async get(id: string): Promise<Delivery | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: deliveryKey(id), ConsistentRead: true }));
    return fromItem<Delivery>(Item);
  }

  /**
   * A page of a subscription's deliveries, newest first (made since deliveries were indexed by
   * subscription); null when `before` names no delivery of this subscription (webhook-delivery-pages.ts).
   */
  listForWebhook(query: DeliveryPageQuery): Promise<DeliveryPage | null> {
    return webhookDeliveryPage(this.db, this.tableName, query);
  }

  async subscription(orgId: string, webhookId: string): Promise<WebhookTarget | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.webhook(orgId, webhookId), ConsistentRead: true }));
    return fromItem<WebhookTarget>(Item);
  }

  /** The item a stream record names by its key (the stream holds keys only), as stored, read consistently. */
  async storedItem(key: ItemKey): Promise<Record<string, unknown> | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return Item ?? null;
  }

  async auditEntry(orgId: string, seq: number): Promise<AuditEntry | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.auditEntry(orgId, seq), ConsistentRead: true }));
    return fromItem<AuditEntry>(Item);
  }

  /**
   * Takes attempt number `attempts + 1`, if nobody took it meanwhile: counts it and moves the next
   * attempt time to when a retry would be due, so a worker that dies mid-attempt is re-driven by
   * the sweep. False when another worker got there first.
   */
  async claim(delivery: Delivery, nowIso: string, retryAt: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: deliveryKey(delivery.id),
          UpdateExpression: 'SET attempts = :next, lastAttemptAt = :now, nextAttemptAt = :retryAt, gsi6sk = :due',
          ConditionExpression: '#status = :pending AND attempts = :attempts',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':next': delivery.attempts + 1,
            ':now': nowIso,
            ':retryAt': retryAt,
            ':due': dueSort(retryAt, delivery.id),
            ':pending': 'pending',
            ':attempts': delivery.attempts,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * A 2xx for the attempt `claimed` holds: the delivery is done, and the subscription healthy again
   * (`last_delivered_at` set, `failing_since` cleared), in one transaction. False when the attempt
   * is no longer the delivery's latest (a stale worker changes nothing).
   */
  async delivered(claimed: Delivery, status: number, nowIso: string, answeredQuickly = false) {
    return this.recordAttempt(claimed, deliveredChange(status), healthyChange(nowIso, answeredQuickly));
  }

  /**
   * Several 2xx outcomes (a batch's) in one transaction if they can go together
   * (delivered-together.ts), else each in its own as `delivered` writes it: whether each was
   * recorded (false: its attempt was stale).
   */
  async deliveredTogether(outcomes: DeliveredOutcome[]): Promise<boolean[]> {
    if (outcomes.length > 1 && (await recordDeliveredTogether(this.db, this.tableName, outcomes))) return outcomes.map(() => true);
    return Promise.all(outcomes.map((outcome) => this.delivered(outcome.claimed, outcome.status, outcome.nowIso, outcome.answeredQuickly)));
  }

  /**
   * The fast lane's budget ran out on the attempt `claimed`: the attempt is given back (it was
   * the lane's limit, not the receiver's 10 seconds, that ended it) and the delivery is due again
   * at once, and its subscription is marked slow, in one transaction. False when the attempt is stale.
   */
  async toSlowLane(claimed: Delivery, nowIso: string) {
    return this.recordAttempt(
      claimed,
      { expression: 'SET attempts = :previous, nextAttemptAt = :now, gsi6sk = :due, movedToSlowLane = :moved', values: { ':previous': claimed.attempts - 1, ':now': nowIso, ':due': dueSort(nowIso, claimed.id), ':moved': true } },
      { expression: 'SET slowSince = :now', values: { ':now': nowIso, ':null': null }, condition: ' AND (attribute_not_exists(slowSince) OR slowSince = :null)' },
    );
  }

  /** A slow receiver answered quickly outside a delivery (a failure status): back to the fast lane. */
  async answeredQuickly(orgId: string, webhookId: string) {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhook(orgId, webhookId),
          UpdateExpression: 'SET slowSince = :null',
          ConditionExpression: 'attribute_exists(pk) AND attribute_exists(slowSince) AND slowSince <> :null',
          ExpressionAttributeValues: { ':null': null },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * A failed attempt with retries left: notes why on the delivery and, if the subscription is not
   * failing now, sets its `failing_since`, in one transaction. False when the attempt is stale.
   * Judged by the subscription as it is at the write, not as the attempt read it: another
   * delivery's success may have cleared `failing_since` while this attempt ran.
   */
  async retrying(claimed: Delivery, outcome: { status: number | null; error: string }, nowIso: string) {
    return this.recordAttempt(
      claimed,
      { expression: 'SET lastStatus = :code, lastError = :error', values: { ':code': outcome.status, ':error': outcome.error } },
      failingChange(nowIso),
    );
  }

  /**
   * Writes an attempt's outcome on the delivery (if that attempt is still its latest and it is
   * still pending) and on its subscription, in one transaction. When only the subscription's part
   * cannot apply (it was deleted, or another worker already marked it), the delivery's part is
   * written alone.
   */
  private async recordAttempt(claimed: Delivery, onDelivery: OutcomeChange, onSubscription: OutcomeChange | null): Promise<boolean> {
    const deliveryWrite = deliveryOutcomeWrite(this.tableName, claimed, onDelivery);
    if (onSubscription) {
      const subscriptionWrite = subscriptionOutcomeWrite(this.tableName, claimed, onSubscription);
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: [deliveryWrite, subscriptionWrite] }));
        return true;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        if (codes[0] === 'ConditionalCheckFailed') return false;
        // The subscription's part could not apply: it was deleted or already marked (its condition),
        // or another worker is writing the same mark this moment (a conflict): the delivery's part still stands.
        if (codes[1] !== 'ConditionalCheckFailed' && codes[1] !== 'TransactionConflict') throw error;
      }
    }
    try {
      await this.db.send(new UpdateCommand(deliveryWrite.Update));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * The last attempt failed: the delivery is failed, audited (`webhook.delivery_failed`) and the
   * subscription marked failing, in one transaction. False when another worker finished it first.
   */
  async failed(delivery: Delivery, attempts: number, outcome: { status: number | null; error: string }, nowIso: string) {
    const deliveryWrite: TransactItem = {
      Update: {
        TableName: this.tableName,
        Key: deliveryKey(delivery.id),
        UpdateExpression: 'SET #status = :failed, lastStatus = :code, lastError = :error REMOVE gsi6pk, gsi6sk',
        ConditionExpression: '#status = :pending AND attempts = :attempts',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending', ':attempts': attempts, ':code': outcome.status, ':error': outcome.error },
      },
    };
    // Not failing now (whatever the attempt read: a success may have cleared it meanwhile); failing already, it keeps its start.
    const subscriptionWrite: TransactItem = subscriptionOutcomeWrite(this.tableName, delivery, failingChange(nowIso));
    const input = {
      orgId: delivery.orgId,
      type: 'webhook.delivery_failed' as const,
      actor: { type: 'system' as const, label: null },
      clientId: delivery.clientId,
      requestId: null,
      data: {
        details: {
          webhook_id: delivery.webhookId,
          delivery_id: delivery.id,
          event_seq: delivery.eventSeq,
          event_type: delivery.eventType,
          attempts,
          last_status: outcome.status,
        },
      },
    };
    try {
      await this.audit.append(input, [deliveryWrite, subscriptionWrite]);
      return true;
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      // The subscription is failing already (or went away), or the delivery was finished: try the delivery alone.
      try {
        await this.audit.append(input, [deliveryWrite]);
        return true;
      } catch (again) {
        if (again instanceof WriteConflict) return false;
        throw again;
      }
    }
  }

  /** The subscription is gone or inactive: nothing more will be attempted. */
  async cancel(delivery: Delivery) {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(delivery.id),
        UpdateExpression: 'SET #status = :cancelled REMOVE gsi6pk, gsi6sk',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending' },
      }),
    ).catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  }

  /**
   * Pending deliveries whose next attempt is due by `nowIso`, oldest first per shard, each with its
   * subscription: the sweep's message is grouped by it, as the fan-out's is. Each shard has an equal
   * share of `limit`: a delivery's shard is its id's, so when more than `limit` are due (a backlog
   * behind a slow receiver) every shard still gives its oldest, and no shard's lost messages wait
   * for the first shard to drain. What a shard with fewer leaves of its share goes to the shards
   * with more, so that when no more than `limit` are due, every one is taken.
   */
  async due(nowIso: string, limit = 500): Promise<Array<{ id: string; webhookId: string }>> {
    const share = Math.ceil(limit / DELIVERY_SHARDS);
    const due: Array<{ id: string; webhookId: string }> = [];
    /** Where each shard that gave its whole share stopped, for the spare slots. */
    const more = new Map<number, Record<string, unknown>>();
    const take = async (shard: number, quota: number, from: Record<string, unknown> | undefined) => {
      let found = 0;
      let start = from;
      do {
        const page = await this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: INDEXES.byDelivery.indexName,
            KeyConditionExpression: 'gsi6pk = :shard AND gsi6sk <= :until',
            ExpressionAttributeValues: { ':shard': `DELIVERY_DUE#${shard}`, ':until': `${nowIso}#~` },
            ProjectionExpression: 'id, webhookId',
            Limit: quota - found,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) due.push({ id: item.id as string, webhookId: item.webhookId as string });
        found += page.Items?.length ?? 0;
        start = page.LastEvaluatedKey;
      } while (start && found < quota);
      if (start) more.set(shard, start);
      else more.delete(shard);
    };
    for (let shard = 0; shard < DELIVERY_SHARDS && due.length < limit; shard++) await take(shard, Math.min(share, limit - due.length), undefined);
    for (const [shard, start] of [...more]) {
      if (due.length >= limit) break;
      await take(shard, limit - due.length, start);
    }
    return due;
  }
}
