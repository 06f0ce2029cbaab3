import type { TransactItem } from './audit-log.ts';
import type { Delivery } from './deliveries.ts';
import { deliveryKey } from './delivery-keys.ts';
import { keys } from './keys.ts';

/** What an attempt's outcome changes on its delivery, or on the subscription it went to (with a condition of its own). */
export interface OutcomeChange {
  expression: string;
  values: Record<string, unknown>;
  condition?: string;
}

/** A 2xx: the delivery is done. */
export const deliveredChange = (status: number): OutcomeChange => ({
  expression: 'SET #status = :delivered, lastStatus = :code, lastError = :null REMOVE gsi6pk, gsi6sk',
  values: { ':delivered': 'delivered', ':code': status, ':null': null },
});

/** A 2xx: the subscription is healthy again; a quick answer also brings the receiver back to the fast lane. */
export const healthyChange = (nowIso: string, answeredQuickly: boolean): OutcomeChange => ({
  expression: `SET lastDeliveredAt = :now, failingSince = :null${answeredQuickly ? ', slowSince = :null' : ''}`,
  values: { ':now': nowIso, ':null': null },
});

/** A failure: the subscription is failing from now, unless it is failing already (it keeps its start). */
export const failingChange = (nowIso: string): OutcomeChange => ({
  expression: 'SET failingSince = :now',
  values: { ':now': nowIso, ':null': null },
  condition: ' AND (attribute_not_exists(failingSince) OR failingSince = :null)',
});

/** The delivery's part of an outcome, on condition that the attempt `claimed` is still its latest and it is still pending. */
export const deliveryOutcomeWrite = (tableName: string, claimed: Delivery, change: OutcomeChange) =>
  ({
    Update: {
      TableName: tableName,
      Key: deliveryKey(claimed.id),
      UpdateExpression: change.expression,
      ConditionExpression: '#status = :pending AND attempts = :attempts',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ...change.values, ':pending': 'pending', ':attempts': claimed.attempts },
    },
  }) satisfies TransactItem;

/** The subscription's part of an outcome, on condition that it still exists (and of the change's own). */
export const subscriptionOutcomeWrite = (tableName: string, target: Pick<Delivery, 'orgId' | 'webhookId'>, change: OutcomeChange) =>
  ({
    Update: {
      TableName: tableName,
      Key: keys.webhook(target.orgId, target.webhookId),
      UpdateExpression: change.expression,
      ConditionExpression: `attribute_exists(pk)${change.condition ?? ''}`,
      ExpressionAttributeValues: change.values,
    },
  }) satisfies TransactItem;
