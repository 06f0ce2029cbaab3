import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { Documents } from '#store/dynamo.ts';
import { createTableInput, indexList, TTL_ATTRIBUTE } from '#store/table.ts';

/**
 * Creates the table (same definition as the stack's) unless it exists; returns whether it did.
 * A table kept in `.data/` from an earlier version gets the indexes added since, one at a time,
 * as DynamoDB allows (a deployed table gets them from the stack).
 */
export const ensureTable = async (db: Documents, tableName: string): Promise<boolean> => {
  let existing: TableDescription | undefined;
  try {
    existing = (await db.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException) && (error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  if (existing) {
    await addMissingIndexes(db, tableName, existing);
    return false;
  }
  await db.send(new CreateTableCommand(createTableInput(tableName)));
  await db.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }),
  );
  return true;
};

const addMissingIndexes = async (db: Documents, tableName: string, table: TableDescription) => {
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const wanted = createTableInput(tableName).GlobalSecondaryIndexes ?? [];
  for (const index of indexList()) {
    if (present.has(index.indexName)) continue;
    const definition = wanted.find((candidate) => candidate.IndexName === index.indexName)!;
    await db.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: index.partitionKey, AttributeType: 'S' },
          { AttributeName: index.sortKey, AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: definition.IndexName, KeySchema: definition.KeySchema, Projection: definition.Projection } }],
      }),
    );
  }
};
