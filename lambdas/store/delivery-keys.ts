import type { Delivery } from './deliveries.ts';

/** Where webhook deliveries live (DESIGN-KEYS.md): the item, its due-index shard and sort key, its subscription's list. */
export const DELIVERY_SHARDS = 4;
export const deliveryKey = (id: string) => ({ pk: `DELIVERY#${id}`, sk: 'DELIVERY' });
const dueShard = (id: string) => `DELIVERY_DUE#${id.charCodeAt(id.length - 1) % DELIVERY_SHARDS}`;
export const dueSort = (nextAttemptAt: string, id: string) => `${nextAttemptAt}#${id}`;
/** A subscription's deliveries in the byOrg index, for its page in the member app. */
export const webhookDeliveries = (orgId: string, webhookId: string) => `ORG#${orgId}#WEBHOOK#${webhookId}#DELIVERIES`;

/** The put of a new delivery, pending and in the due index, on condition that it is new. */
export const newDeliveryPut = (tableName: string, delivery: Delivery) => ({
  TableName: tableName,
  Item: {
    ...deliveryKey(delivery.id),
    kind: 'webhook_delivery',
    gsi6pk: dueShard(delivery.id),
    gsi6sk: dueSort(delivery.nextAttemptAt, delivery.id),
    gsi1pk: webhookDeliveries(delivery.orgId, delivery.webhookId),
    gsi1sk: `${delivery.createdAt}#${delivery.id}`,
    ...delivery,
  },
  ConditionExpression: 'attribute_not_exists(pk)',
});
