/**
 * The local table as ensureTable makes it on DynamoDB Local: the stack's definition (its indexes,
 * TTL and stream), the rate table beside it, and, for tests that never read the stream, the same
 * table without one.
 */
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { startLocalService } from '../../lambdas/local/local-service.ts';
import { ensureTable } from '../../lambdas/local/table-bootstrap.ts';
import { createDocumentClient } from '../../lambdas/store/dynamo.ts';
import { createTableInput, indexList, rateTableNameOf, TTL_ATTRIBUTE } from '../../lambdas/store/table.ts';

const db = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
afterAll(() => db.destroy());

const described = async (tableName: string) => (await db.send(new DescribeTableCommand({ TableName: tableName }))).Table!;
const ttlOf = async (tableName: string) => (await db.send(new DescribeTimeToLiveCommand({ TableName: tableName }))).TimeToLiveDescription;

describe('ensureTable', () => {
  it('makes the table as the stack does, with its stream, and its rate table; a second call makes nothing', async () => {
    const name = `bootstrap-${newId()}`;
    expect(await ensureTable(db, name)).toBe(true);
    const table = await described(name);
    expect(table.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'KEYS_ONLY' });
    expect(table.LatestStreamArn).toEqual(expect.any(String));
    expect((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName).sort()).toEqual(indexList().map((index) => index.indexName).sort());
    expect(await ttlOf(name)).toMatchObject({ AttributeName: TTL_ATTRIBUTE, TimeToLiveStatus: 'ENABLED' });
    expect((await described(rateTableNameOf(name))).TableStatus).toBe('ACTIVE');
    expect(await ensureTable(db, name)).toBe(false);
  });

  it("gives a table kept from a version whose stream carried the items' images a stream of keys only", async () => {
    const name = `bootstrap-${newId()}`;
    const { StreamSpecification: _keysOnly, ...definition } = createTableInput(name);
    await db.send(new CreateTableCommand({ ...definition, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }));
    const before = (await described(name)).LatestStreamArn;
    expect(await ensureTable(db, name)).toBe(false);
    const table = await described(name);
    expect(table.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'KEYS_ONLY' });
    expect(table.LatestStreamArn).not.toBe(before);
  });

  it('with stream: false, makes the same table without a stream', async () => {
    const name = `bootstrap-${newId()}`;
    expect(await ensureTable(db, name, { stream: false })).toBe(true);
    const table = await described(name);
    expect(table.StreamSpecification).toBeUndefined();
    expect(table.LatestStreamArn).toBeUndefined();
    expect((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName).sort()).toEqual(indexList().map((index) => index.indexName).sort());
    expect(await ttlOf(name)).toMatchObject({ AttributeName: TTL_ATTRIBUTE, TimeToLiveStatus: 'ENABLED' });
  });

  it('is refused a table without a stream by a local service whose webhooks would read it', async () => {
    await expect(startLocalService({ dynamoEndpoint: inject('dynamoEndpoint'), tableName: `bootstrap-${newId()}`, tableStream: false })).rejects.toThrow(
      'webhooks read the table stream',
    );
  });
});
