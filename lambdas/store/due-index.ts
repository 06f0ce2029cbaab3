import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DuePage, DuePaging, DueRequests } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { INDEXES } from './table.ts';

const DEFAULT_LIMIT = 100;

/**
 * One page of the byDue index over `shards`: the ids due at or before `now`, at most `limit` per
 * shard, each shard going on from its key in `after` (a shard missing from `after` was read to its
 * end and is not read again). Going on rather than starting at the top matters deployed: the index
 * lags the table, so a shard's top can still list ids the previous page already ended.
 */
export const readDue = async (db: Documents, tableName: string, shards: readonly string[], now: Date, page: DuePaging = {}): Promise<DuePage> => {
  const read = page.after ? shards.filter((shard) => page.after![shard]) : shards;
  const answers = await Promise.all(
    read.map(async (shard) => {
      const answer = await db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: INDEXES.byDue.indexName,
          KeyConditionExpression: 'gsi5pk = :shard AND gsi5sk <= :now',
          ExpressionAttributeValues: { ':shard': shard, ':now': `${now.toISOString()}~` },
          ProjectionExpression: 'id',
          Limit: page.limit ?? DEFAULT_LIMIT,
          ExclusiveStartKey: page.after?.[shard] as Record<string, unknown> | undefined,
        }),
      );
      return { shard, answer };
    }),
  );
  const next: Record<string, Record<string, unknown>> = {};
  for (const { shard, answer } of answers) if (answer.LastEvaluatedKey) next[shard] = answer.LastEvaluatedKey;
  return {
    ids: answers.flatMap(({ answer }) => (answer.Items ?? []).map((item) => item.id as string)),
    next: Object.keys(next).length > 0 ? next : null,
  };
};

/** The requests' due index, for the sweep alone (store-wiring.ts withDueRequests). */
export class DynamoDueRequests implements DueRequests {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  /** Ids of live requests due at or before `now`, across every shard, a page at a time. */
  dueBy(now: Date, page?: DuePaging) {
    return readDue(this.db, this.tableName, keys.dueShards(), now, page);
  }
}
