import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Delivery } from './deliveries.ts';
import { deliveryKey, webhookDeliveries } from './delivery-keys.ts';
import type { Documents } from './dynamo.ts';
import { fromItem } from './items.ts';
import { queryAllPages } from './query-prefix.ts';
import { INDEXES } from './table.ts';

/** Which page of a subscription's deliveries: newest first, after the delivery `before` names when it is set. */
export interface DeliveryPageQuery {
  orgId: string;
  webhookId: string;
  limit: number;
  /** The id of the last delivery a previous page showed (its `nextBefore`). */
  before?: string;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  /** Where the next, older page starts; null on the last page. */
  nextBefore: string | null;
}

/**
 * Where a page that follows the delivery `id` starts in the subscription's list (the byOrg index
 * key DynamoDB pages from), or null when `id` is no delivery of this subscription. The cursor is
 * the id of the last delivery shown, as GET /v1/requests' is a request's id; the key is read from
 * the stored item, never taken from the caller, so a delivery of another subscription or
 * organisation names no place here and nothing of theirs is read past it.
 */
const startAfter = async (db: Documents, tableName: string, query: DeliveryPageQuery & { before: string }) => {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: deliveryKey(query.before), ProjectionExpression: 'pk, sk, gsi1pk, gsi1sk', ConsistentRead: true }),
  );
  if (!Item || Item.gsi1pk !== webhookDeliveries(query.orgId, query.webhookId) || typeof Item.gsi1sk !== 'string') return null;
  return { pk: Item.pk, sk: Item.sk, gsi1pk: Item.gsi1pk, gsi1sk: Item.gsi1sk };
};

/**
 * One page of a subscription's deliveries, newest first (by creation, then id), as the member
 * app's webhook page lists them; null when `before` names no delivery of this subscription.
 * One more than `limit` is read to learn whether an older page exists, so the last page says so
 * itself instead of leaving a caller to ask for an empty one.
 */
export const webhookDeliveryPage = async (db: Documents, tableName: string, query: DeliveryPageQuery): Promise<DeliveryPage | null> => {
  const start = query.before === undefined ? undefined : await startAfter(db, tableName, { ...query, before: query.before });
  if (start === null) return null;
  const items = await queryAllPages(
    db,
    {
      TableName: tableName,
      IndexName: INDEXES.byOrg.indexName,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': webhookDeliveries(query.orgId, query.webhookId) },
      ScanIndexForward: false,
    },
    query.limit + 1,
    start,
  );
  const deliveries = items.slice(0, query.limit).map((item) => fromItem<Delivery>(item)!);
  return { deliveries, nextBefore: items.length > query.limit ? deliveries[deliveries.length - 1]!.id : null };
};
