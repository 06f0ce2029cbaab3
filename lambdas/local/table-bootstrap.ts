import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { Documents } from '#store/dynamo.ts';
import { createTableInput, TTL_ATTRIBUTE } from '#store/table.ts';

/** Creates the table (same definition as the stack's) unless it exists; returns whether it did. */
export const ensureTable = async (db: Documents, tableName: string): Promise<boolean> => {
  try {
    await db.send(new DescribeTableCommand({ TableName: tableName }));
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException) && (error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await db.send(new CreateTableCommand(createTableInput(tableName)));
  await db.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }),
  );
  return true;
};
