import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Documents } from './dynamo.ts';
import type { IndexDefinition } from './table.ts';

/**
 * The items one query finds, following its pages until there are no more or `limit` are read;
 * `startAfter` (a key as DynamoDB's LastEvaluatedKey gives it) begins past that item.
 */
export const queryAllPages = async (
  db: Documents,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'>,
  limit = Infinity,
  startAfter?: Record<string, unknown>,
) => {
  const items: Record<string, unknown>[] = [];
  let start = startAfter;
  do {
    const page = await db.send(new QueryCommand({ ...input, Limit: Number.isFinite(limit) ? limit - items.length : undefined, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
};

/** Every item of partition `pk` whose sort key starts with `prefix`, following all pages. */
export const queryPrefix = async (
  db: Documents,
  tableName: string,
  pk: string,
  prefix: string,
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> =>
  queryAllPages(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    ConsistentRead: options.consistent,
  });

/**
 * The items under one index partition, oldest first, following pages up to `limit`: whole (the
 * indexes project every attribute), or only the attributes `projection` names.
 */
export const queryIndexItems = (db: Documents, tableName: string, index: IndexDefinition, partition: string, limit: number, projection?: string) =>
  queryAllPages(
    db,
    {
      TableName: tableName,
      IndexName: index.indexName,
      KeyConditionExpression: `${index.partitionKey} = :partition`,
      ExpressionAttributeValues: { ':partition': partition },
      ProjectionExpression: projection,
    },
    limit,
  );

/** The record ids (`id`) under one index partition, oldest first, following pages up to `limit`. */
export const queryIds = async (db: Documents, tableName: string, index: IndexDefinition, partition: string, limit: number) =>
  (await queryIndexItems(db, tableName, index, partition, limit, 'id')).map((item) => item.id as string);
