import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '#core/each-limited.ts';
import type { Delivery } from './deliveries.ts';
import { newDeliveryPut } from './delivery-keys.ts';
import { cancellationCodes, isConditionFailure, type Documents } from './dynamo.ts';

/**
 * New deliveries stored per transaction: one call for a stream batch's deliveries (the fan-out's
 * batch is 25 records) instead of one each. DynamoDB takes 100 items; a smaller transaction
 * commits sooner, and its deliveries reach the queue sooner.
 */
export const DELIVERIES_PER_TRANSACTION = 25;
/** Tries of a transaction that found some of its deliveries there already (each try drops those). */
const TRIES = 3;
/** Puts at once when deliveries go one at a time. */
const SINGLE_PUTS_AT_ONCE = 8;

export interface CreatedDeliveries {
  created: Delivery[];
  /** Deliveries that could not be stored, each with its error (the others are unaffected). */
  failed: Array<{ delivery: Delivery; error: unknown }>;
}

/**
 * Stores new deliveries, each on condition that it does not exist yet (its id is derived from
 * webhook and event, so a redelivered stream record finds its deliveries there and creates none).
 * Several go in one transaction, which adds no atomicity anyone relies on (each item is a delivery
 * of its own with its own condition): it only saves calls. A transaction cancelled because some
 * of its deliveries exist is tried again without them; one that fails for any other reason is done
 * one put at a time, so that one delivery's trouble stays its own, as with single puts.
 */
export const createDeliveries = async (db: Documents, tableName: string, deliveries: Delivery[]): Promise<CreatedDeliveries> => {
  const outcome: CreatedDeliveries = { created: [], failed: [] };
  for (let start = 0; start < deliveries.length; start += DELIVERIES_PER_TRANSACTION) {
    const left = await inOneTransaction(db, tableName, deliveries.slice(start, start + DELIVERIES_PER_TRANSACTION), outcome);
    await forEachLimited(left, SINGLE_PUTS_AT_ONCE, async (delivery) => {
      try {
        await db.send(new PutCommand(newDeliveryPut(tableName, delivery)));
        outcome.created.push(delivery);
      } catch (error) {
        if (!isConditionFailure(error)) outcome.failed.push({ delivery, error });
      }
    });
  }
  return outcome;
};

/** Stores `chunk` in one transaction if it can; answers the deliveries still to be put one at a time. */
const inOneTransaction = async (db: Documents, tableName: string, chunk: Delivery[], outcome: CreatedDeliveries): Promise<Delivery[]> => {
  let pending = chunk;
  for (let attempt = 1; pending.length > 1 && attempt <= TRIES; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: pending.map((delivery) => ({ Put: newDeliveryPut(tableName, delivery) })) }));
      outcome.created.push(...pending);
      return [];
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes || codes.some((code) => code !== 'None' && code !== 'ConditionalCheckFailed')) return pending;
      // Those there already were made by an earlier run of the same record: left as they are.
      pending = pending.filter((_, index) => codes[index] !== 'ConditionalCheckFailed');
    }
  }
  return pending;
};
