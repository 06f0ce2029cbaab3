import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { newId } from '../lambdas/core/ids.ts';

/**
 * The raw baseline of an audited change: a TransactWriteItems that moves a head on condition and
 * puts new items on condition, as the service's writes do. `item` fills the puts; `items` is how
 * many puts beside the head (default 3, as request creation writes).
 */
export const rawAuditedWrite = (db: DynamoDBDocumentClient, tableName: string, item: Record<string, unknown>, items = 3) => {
  const id = newId();
  const puts = [
    { pk: `BENCH#${id}`, sk: 'SEQ#1' },
    { pk: `BENCHREQ#${id}`, sk: 'REQ' },
    { pk: `BENCHLINK#${id}`, sk: 'LINK' },
  ].slice(0, items);
  return db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: tableName, Key: { pk: `BENCH#${id}`, sk: 'HEAD' }, UpdateExpression: 'SET n = :n', ConditionExpression: 'attribute_not_exists(n)', ExpressionAttributeValues: { ':n': 1 } } },
        ...puts.map((key) => ({ Put: { TableName: tableName, Item: { ...item, ...key }, ConditionExpression: 'attribute_not_exists(pk)' } })),
      ],
    }),
  );
};

/**
 * The raw baseline of the webhook pipeline: one conditional PutItem then one consistent GetItem of
 * the same new item. Not an audit item, so the stream poller's filter passes none to the fan-out.
 */
export const rawPutGetPair = async (db: DynamoDBDocumentClient, tableName: string) => {
  const key = { pk: `BENCHFAN#${newId()}`, sk: 'ITEM' };
  await db.send(new PutCommand({ TableName: tableName, Item: { ...key, kind: 'bench', at: new Date().toISOString() }, ConditionExpression: 'attribute_not_exists(pk)' }));
  await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
};
