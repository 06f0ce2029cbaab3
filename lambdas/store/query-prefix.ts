import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Documents } from './dynamo.ts';
import type { IndexDefinition } from './table.ts';

/** Every item of partition `pk` whose sort key starts with `prefix`, following all pages. */
export const queryPrefix = async (
  db: Documents,
  tableName: string,
  pk: string,
  prefix: string,
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ConsistentRead: options.consistent,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/**
 * The items under one index partition, oldest first, following pages up to `limit`: whole (the
 * indexes project every attribute), or only the attributes `projection` names.
 */
export const queryIndexItems = async (db: Documents, tableName: string, index: IndexDefinition, partition: string, limit: number, projection?: string) => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.indexName,
        KeyConditionExpression: `${index.partitionKey} = :partition`,
        ExpressionAttributeValues: { ':partition': partition },
        ProjectionExpression: projection,
        Limit: limit - items.length,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
};

/** The record ids (`id`) under one index partition, oldest first, following pages up to `limit`. */
export const queryIds = async (db: Documents, tableName: string, index: IndexDefinition, partition: string, limit: number) =>
  (await queryIndexItems(db, tableName, index, partition, limit, 'id')).map((item) => item.id as string);
