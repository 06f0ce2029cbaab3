import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Documents } from './dynamo.ts';

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
