import { ScanCommand as RawScanCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { AccessDeniedException, TableAccessGuard, usesOf, type AccessDenial } from '../../lambdas/access/table-access-guard.ts';
import type { TableAccess } from '../../lambdas/access/table-access-types.ts';
import { ensureTable } from '../../lambdas/local/table-bootstrap.ts';
import { createDocumentClient, type Documents } from '../../lambdas/store/dynamo.ts';
import { INDEXES } from '../../lambdas/store/table.ts';

/**
 * The local stand-in for the deployed IAM policies: while a function runs, a call its declaration
 * does not allow (action, index, or partition-key prefix) is refused with AccessDeniedException
 * before it reaches the table; what it allows goes through; calls outside any function are not
 * checked.
 */
const TABLE = `guard-${newId()}`;
const orgId = newId();
const requestId = newId();

/** Reads and writes requests and organisations, queries the byOrg index of an organisation: nothing else. */
const DECLARED: TableAccess = {
  items: { GetItem: ['REQ#', 'ORG#'], PutItem: ['REQ#', 'ORG#'], UpdateItem: ['REQ#', 'ORG#'], ConditionCheckItem: ['REQ#'] },
  indexes: { byOrg: ['ORG#'] },
};

let db: Documents;
let unchecked: Documents;
const denied: AccessDenial[] = [];
const guard = new TableAccessGuard({ onDenied: (denial) => denied.push(denial) });
const asFunction = <T>(call: () => Promise<T>) => guard.run('testFunction', DECLARED, call);

beforeAll(async () => {
  db = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
  unchecked = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
  await ensureTable(unchecked, TABLE);
  guard.attach(db);
});
afterAll(() => {
  db.destroy();
  unchecked.destroy();
});

const refusedWith = async (call: () => Promise<unknown>, reason: RegExp) => {
  const before = denied.length;
  const error = await asFunction(call).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AccessDeniedException);
  expect((error as Error).name).toBe('AccessDeniedException');
  expect((error as AccessDeniedException).denial.reason).toMatch(reason);
  expect(denied).toHaveLength(before + 1);
  expect(guard.denials.at(-1)).toEqual(denied.at(-1));
};

describe('a declared call', () => {
  it('goes through: item actions on declared partitions, a transaction of declared items, a query of a declared index', async () => {
    await asFunction(() => db.send(new PutCommand({ TableName: TABLE, Item: { pk: `REQ#${requestId}`, sk: 'REQ', kind: 'request', gsi1pk: `ORG#${orgId}#REQS`, gsi1sk: requestId } })));
    await asFunction(() =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName: TABLE, Key: { pk: `REQ#${requestId}`, sk: 'REQ' }, ConditionExpression: 'attribute_exists(pk)' } },
            { Update: { TableName: TABLE, Key: { pk: `ORG#${orgId}`, sk: 'ORG' }, UpdateExpression: 'SET #n = :n', ExpressionAttributeNames: { '#n': 'name' }, ExpressionAttributeValues: { ':n': 'x' } } },
          ],
        }),
      ),
    );
    const { Item } = await asFunction(() => db.send(new GetCommand({ TableName: TABLE, Key: { pk: `REQ#${requestId}`, sk: 'REQ' } })));
    expect(Item?.kind).toBe('request');
    const { Items } = await asFunction(() =>
      db.send(new QueryCommand({ TableName: TABLE, IndexName: INDEXES.byOrg.indexName, KeyConditionExpression: '#p = :p', ExpressionAttributeNames: { '#p': 'gsi1pk' }, ExpressionAttributeValues: { ':p': `ORG#${orgId}#REQS` } })),
    );
    expect(Items?.map((item) => item.pk)).toEqual([`REQ#${requestId}`]);
  });

  it('is not checked outside any function (tests, the admin CLI)', async () => {
    await db.send(new PutCommand({ TableName: TABLE, Item: { pk: `SESSION#${newId()}`, sk: 'SESSION' } }));
    const { Items } = await db.send(new ScanCommand({ TableName: TABLE }));
    expect(Items?.length).toBeGreaterThan(0);
  });
});

describe('an undeclared call is refused before it reaches the table', () => {
  it('an action the declaration does not list (DeleteItem, Scan, BatchWriteItem, a base-table Query)', async () => {
    await refusedWith(() => db.send(new ScanCommand({ TableName: TABLE })), /action is not declared/);
    await refusedWith(() => db.send(new RawScanCommand({ TableName: TABLE })), /action is not declared/);
    await refusedWith(
      () => db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: `REQ#${newId()}`, sk: 'REQ' } } }] } })),
      /action is not declared/,
    );
    await refusedWith(
      () => db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `REQ#${requestId}` } })),
      /action is not declared/,
    );
    // A transaction is authorised item by item: one undeclared Delete refuses the whole of it, and nothing is written.
    const marker = newId();
    await refusedWith(
      () =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: { pk: `REQ#${marker}`, sk: 'REQ' } } },
              { Delete: { TableName: TABLE, Key: { pk: `REQ#${requestId}`, sk: 'REQ' } } },
            ],
          }),
        ),
      /action is not declared/,
    );
    const { Item } = await unchecked.send(new GetCommand({ TableName: TABLE, Key: { pk: `REQ#${marker}`, sk: 'REQ' } }));
    expect(Item).toBeUndefined();
  });

  it('an index the declaration does not list, or a partition of a listed index outside its prefixes', async () => {
    await refusedWith(
      () => db.send(new QueryCommand({ TableName: TABLE, IndexName: INDEXES.byDue.indexName, KeyConditionExpression: 'gsi5pk = :s', ExpressionAttributeValues: { ':s': 'DUE#0' } })),
      /index byDue is not declared/,
    );
    await refusedWith(
      () => db.send(new QueryCommand({ TableName: TABLE, IndexName: INDEXES.byOrg.indexName, KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': 'DUE#0' } })),
      /index partition is not one of ORG#/,
    );
  });

  it('a partition key outside the declared prefixes, alone or in a transaction', async () => {
    await refusedWith(() => db.send(new GetCommand({ TableName: TABLE, Key: { pk: `SESSION#${newId()}`, sk: 'SESSION' } })), /partition is not one of REQ#, ORG# for GetItem/);
    // Each action has its own partitions: a condition check is declared for requests only, not organisations.
    await refusedWith(
      () =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              { ConditionCheck: { TableName: TABLE, Key: { pk: `ORG#${orgId}`, sk: 'ORG' }, ConditionExpression: 'attribute_exists(pk)' } },
              { Put: { TableName: TABLE, Item: { pk: `REQ#${newId()}`, sk: 'REQ' } } },
            ],
          }),
        ),
      /partition is not one of REQ# for ConditionCheckItem/,
    );
    await refusedWith(
      () => db.send(new UpdateCommand({ TableName: TABLE, Key: { pk: `AUDIT#${orgId}`, sk: 'HEAD' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } })),
      /partition is not one of/,
    );
    await refusedWith(
      () =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: { pk: `REQ#${newId()}`, sk: 'REQ' } } },
              { Put: { TableName: TABLE, Item: { pk: `LINK#${newId()}`, sk: 'LINK' } } },
            ],
          }),
        ),
      /partition is not one of/,
    );
  });
});

describe('what a command stands for, as IAM authorises it', () => {
  it('names each transaction item by its own action and each batch key by the batch action', () => {
    expect(
      usesOf('TransactWriteItemsCommand', {
        TransactItems: [
          { Put: { Item: { pk: 'AUDIT#1', sk: 'SEQ#1' } } },
          { Update: { Key: { pk: { S: 'AUDIT#1' }, sk: { S: 'HEAD' } } } },
          { Delete: { Key: { pk: 'REQ#1' } } },
          { ConditionCheck: { Key: { pk: 'ORG#1' } } },
        ],
      }),
    ).toEqual([
      { action: 'PutItem', partitionKey: 'AUDIT#1' },
      { action: 'UpdateItem', partitionKey: 'AUDIT#1' },
      { action: 'DeleteItem', partitionKey: 'REQ#1' },
      { action: 'ConditionCheckItem', partitionKey: 'ORG#1' },
    ]);
    expect(usesOf('BatchGetItemCommand', { RequestItems: { t: { Keys: [{ pk: 'AUDIT#1' }, { pk: 'AUDIT#2' }] } } })).toEqual([
      { action: 'BatchGetItem', partitionKey: 'AUDIT#1' },
      { action: 'BatchGetItem', partitionKey: 'AUDIT#2' },
    ]);
    expect(usesOf('TransactGetItemsCommand', { TransactItems: [{ Get: { Key: { pk: 'REQ#1' } } }] })).toEqual([{ action: 'GetItem', partitionKey: 'REQ#1' }]);
  });

  it("reads a query's partition key from its key condition, written either way round", () => {
    expect(usesOf('QueryCommand', { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': 'REQ#1', ':p': 'TRAIL#' } })).toEqual([
      { action: 'Query', partitionKey: 'REQ#1' },
    ]);
    expect(usesOf('QueryCommand', { IndexName: 'byDue', KeyConditionExpression: ':s = gsi5pk AND gsi5sk <= :now', ExpressionAttributeValues: { ':s': 'DUE#2', ':now': 'x' } })).toEqual([
      { action: 'Query', index: 'byDue', partitionKey: 'DUE#2' },
    ]);
    // A condition on the sort key alone names no partition key: the check cannot allow it.
    expect(usesOf('QueryCommand', { KeyConditionExpression: 'sk = :sk', ExpressionAttributeValues: { ':sk': 'REQ' } })).toEqual([{ action: 'Query', partitionKey: null }]);
  });
});
