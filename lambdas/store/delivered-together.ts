import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { deliveredChange, deliveryOutcomeWrite, healthyChange, subscriptionOutcomeWrite } from './attempt-writes.ts';
import type { Delivery } from './deliveries.ts';
import { cancellationCodes, type Documents } from './dynamo.ts';

/** A 2xx for the attempt `claimed` holds, answered at `nowIso` (quickly: back to the fast lane). */
export interface DeliveredOutcome {
  claimed: Delivery;
  status: number;
  nowIso: string;
  answeredQuickly: boolean;
}

/**
 * Several 2xx outcomes in one transaction: each delivery done on its own condition (its attempt
 * still the latest, it still pending), and each subscription they went to healthy again once, as
 * the last of its outcomes leaves it (its latest time, back in the fast lane if any answered
 * quickly): what each outcome's own transaction would write, all atomic together instead of in
 * pairs. False when it did not go through (a stale attempt, a subscription gone or marked, a
 * conflict): the caller then writes each in its own, which sorts out which part applies.
 */
export const recordDeliveredTogether = async (db: Documents, tableName: string, outcomes: DeliveredOutcome[]): Promise<boolean> => {
  const bySubscription = new Map<string, DeliveredOutcome[]>();
  for (const outcome of outcomes) {
    const subscription = `${outcome.claimed.orgId}#${outcome.claimed.webhookId}`;
    bySubscription.set(subscription, [...(bySubscription.get(subscription) ?? []), outcome]);
  }
  const subscriptionWrites = [...bySubscription.values()].map((same) => {
    const latest = same.map((outcome) => outcome.nowIso).sort().at(-1)!;
    return subscriptionOutcomeWrite(tableName, same[0]!.claimed, healthyChange(latest, same.some((outcome) => outcome.answeredQuickly)));
  });
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [...outcomes.map((outcome) => deliveryOutcomeWrite(tableName, outcome.claimed, deliveredChange(outcome.status))), ...subscriptionWrites],
      }),
    );
    return true;
  } catch (error) {
    if (cancellationCodes(error)) return false;
    throw error;
  }
};
