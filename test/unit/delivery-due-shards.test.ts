import type { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { DELIVERY_SHARDS } from '../../lambdas/store/delivery-keys.ts';

/**
 * The delivery sweep's read of past-due deliveries (DeliveryStore.due) against an index that
 * answers as DynamoDB does: each shard's items oldest first, at most `Limit` a page. When more are
 * due than the sweep takes at once (a backlog behind a slow receiver), every shard must still
 * give its oldest: otherwise the deliveries whose messages were lost in the other shards are not
 * re-driven until the first shard drains.
 */

const backlog = (perShard: number) =>
  Array.from({ length: DELIVERY_SHARDS }, (_, shard) =>
    Array.from({ length: perShard }, (_, i) => ({ id: `d${shard}-${String(i).padStart(4, '0')}`, webhookId: shard === 0 ? 'backlogged' : `w${shard}` })),
  );

const storeOver = (shards: Array<Array<{ id: string; webhookId: string }>>) => {
  const db = {
    send: async (command: QueryCommand) => {
      const { ExpressionAttributeValues, Limit, ExclusiveStartKey } = command.input;
      const items = shards[Number(String(ExpressionAttributeValues![':shard']).split('#')[1])]!;
      const from = (ExclusiveStartKey?.at as number | undefined) ?? 0;
      const to = Math.min(items.length, from + (Limit ?? items.length));
      return { Items: items.slice(from, to), LastEvaluatedKey: to < items.length ? { at: to } : undefined };
    },
  };
  return new DeliveryStore(db as never, 'table', { append: async () => undefined as never });
};

describe('DeliveryStore.due', () => {
  it('takes an equal share of the limit from every shard, oldest first in each, when more are due than the limit', async () => {
    const due = await storeOver(backlog(600)).due('2026-01-01T00:00:00.000Z', 500);
    expect(due).toHaveLength(500);
    for (let shard = 0; shard < DELIVERY_SHARDS; shard++) {
      const ofShard = due.filter((d) => d.id.startsWith(`d${shard}-`)).map((d) => d.id);
      expect(ofShard, `shard ${shard}`).toEqual(backlog(125)[shard]!.map((d) => d.id));
    }
  });

  it('takes every due delivery when fewer than the limit are due', async () => {
    const shards = backlog(3);
    const due = await storeOver(shards).due('2026-01-01T00:00:00.000Z', 500);
    expect(due).toEqual(shards.flat());
  });

  it('gives the slots a shard with fewer than its share leaves to the shards with more: every one is taken when no more than the limit are due', async () => {
    const shards = backlog(3);
    shards[0] = backlog(200)[0]!;
    const due = await storeOver(shards).due('2026-01-01T00:00:00.000Z', 500);
    expect(due).toHaveLength(200 + 3 * (DELIVERY_SHARDS - 1));
    expect(new Set(due.map((d) => d.id))).toEqual(new Set(shards.flat().map((d) => d.id)));
  });

  it('fills the limit from the shards with more, oldest first, when the others have fewer than their share', async () => {
    const shards = backlog(10);
    shards[1] = backlog(600)[1]!;
    const due = await storeOver(shards).due('2026-01-01T00:00:00.000Z', 500);
    expect(due).toHaveLength(500);
    const ofShard = (shard: number) => due.filter((d) => d.id.startsWith(`d${shard}-`)).map((d) => d.id);
    for (const shard of [0, 2, 3]) expect(ofShard(shard), `shard ${shard}`).toHaveLength(10);
    expect(ofShard(1)).toEqual(shards[1]!.slice(0, 500 - 10 * (DELIVERY_SHARDS - 1)).map((d) => d.id));
  });
});
