import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { Documents } from '#store/dynamo.ts';
import { createRateTableInput, createTableInput, indexList, rateTableNameOf, STREAM_VIEW_TYPE, TTL_ATTRIBUTE } from '#store/table.ts';

/**
 * Creates the table (same definition as the stack's) and its rate table unless they exist; returns
 * whether the main table was made.
 * A table kept in `.data/` from an earlier version gets the indexes added since, one at a time,
 * as DynamoDB allows (a deployed table gets them from the stack).
 *
 * `stream: false` makes a new table without its stream, for tests that never read it: DynamoDB
 * Local writes a stream record with every write, and the more records it holds over all its tables
 * the more each write costs (measured over 1,500 puts and gets: about 2 ms of the engine's CPU a
 * pair on a table without a stream, 4 to 6 ms with one in a fresh engine, 6 to 12 ms once 200
 * tables with streams were made beside it).
 */
export const ensureTable = async (db: Documents, tableName: string, options: { stream?: boolean } = {}): Promise<boolean> => {
  // The rate windows' table beside it (lambdas/store/table.ts), made if missing, also beside a kept table.
  const rateTable = rateTableNameOf(tableName);
  if (!(await describe(db, rateTable))) await createWithTtl(db, createRateTableInput(rateTable));
  const existing = await describe(db, tableName);
  if (existing) {
    await addMissingIndexes(db, tableName, existing);
    await streamKeysOnly(db, tableName, existing);
    return false;
  }
  const input = createTableInput(tableName);
  const { StreamSpecification: _stream, ...withoutStream } = input;
  await createWithTtl(db, options.stream === false ? withoutStream : input);
  return true;
};

const describe = async (db: Documents, tableName: string): Promise<TableDescription | undefined> => {
  try {
    return (await db.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException) && (error as Error).name !== 'ResourceNotFoundException') throw error;
    return undefined;
  }
};

const createWithTtl = async (db: Documents, input: CreateTableCommandInput) => {
  await db.send(new CreateTableCommand(input));
  await db.send(new UpdateTimeToLiveCommand({ TableName: input.TableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }));
};

/**
 * A table kept from a version whose stream carried the items' images gets a stream of keys only
 * (store/table.ts says why): DynamoDB changes a stream's view by turning it off and on again, as a
 * new stream. What the old one still holds is trimmed by the engine after its 24 hours.
 */
const streamKeysOnly = async (db: Documents, tableName: string, table: TableDescription) => {
  const stream = table.StreamSpecification;
  if (!stream?.StreamEnabled || stream.StreamViewType === STREAM_VIEW_TYPE) return;
  await db.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: false } }));
  await db.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE } }));
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
