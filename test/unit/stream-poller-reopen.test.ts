import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamPoller } from '../../lambdas/local/stream-poller.ts';
import type { Documents } from '../../lambdas/store/dynamo.ts';
import { waitFor } from '../support/local-process.ts';

/**
 * The local stream poller when GetRecords refuses its iterator (DynamoDB Local trims a table's
 * stream under a running poller; DynamoDB does after 24 hours, and iterators expire): it opens the
 * shard again, after its checkpoint, as a Lambda event source mapping does, instead of asking with
 * the dead iterator forever and delivering nothing more.
 */
const streams = mockClient(DynamoDBStreamsClient);
afterEach(() => streams.reset());

const STREAM = 'arn:aws:dynamodb:local:000000000000:table/t/stream/1';
const table = { send: async () => ({ Table: { LatestStreamArn: STREAM } }) } as unknown as Documents;
const auditInsert = (seq: number) => ({
  eventID: `e${seq}`,
  eventName: 'INSERT' as const,
  dynamodb: { SequenceNumber: String(100 + seq), Keys: { pk: { S: 'AUDIT#o' }, sk: { S: `SEQ#${seq}` } } },
});

describe('StreamPoller', () => {
  it.each(['TrimmedDataAccessException', 'ExpiredIteratorException'])('opens a shard again, after its checkpoint, when GetRecords answers %s', async (refusal) => {
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
    streams.on(GetShardIteratorCommand, { ShardIteratorType: 'TRIM_HORIZON' }).resolves({ ShardIterator: 'from-the-start' });
    streams.on(GetShardIteratorCommand, { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '101' }).resolves({ ShardIterator: 'after-101' });
    streams.on(GetRecordsCommand, { ShardIterator: 'from-the-start' }).resolves({ Records: [auditInsert(1)], NextShardIterator: 'dead' });
    streams.on(GetRecordsCommand, { ShardIterator: 'dead' }).rejects(Object.assign(new Error('refused'), { name: refusal }));
    streams.on(GetRecordsCommand, { ShardIterator: 'after-101' }).resolves({ Records: [auditInsert(2)], NextShardIterator: 'after-102' });
    streams.on(GetRecordsCommand, { ShardIterator: 'after-102' }).resolves({ Records: [], NextShardIterator: 'after-102' });

    const saved = new Map<string, string>();
    const checkpoints = { load: async (_arn: string, shard: string) => saved.get(shard) ?? null, save: async (_arn: string, shard: string, sequence: string) => void saved.set(shard, sequence) };
    const handed: number[] = [];
    const errors: unknown[] = [];
    const handle = async (event: DynamoDBStreamEvent) => {
      handed.push(...event.Records.map((record) => Number(record.dynamodb?.Keys?.sk?.S?.slice('SEQ#'.length))));
      return { batchItemFailures: [] };
    };
    const poller = await new StreamPoller({ db: table, tableName: 't', endpoint: 'http://127.0.0.1:1', checkpoints, handle, pollIntervalMs: 5, onError: (error) => errors.push(error) }).start();
    try {
      await waitFor(() => (handed.includes(2) ? true : undefined), 5_000, 'the record after the refusal');
    } finally {
      await poller.stop();
    }
    // Each record once: the shard was opened again after the checkpoint, not from its start.
    expect(handed).toEqual([1, 2]);
    expect(errors).toEqual([]);
  });

  it('opens a shard at its oldest record when the checkpoint itself was trimmed (the service stopped for more than 24 hours)', async () => {
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
    // DynamoDB Local opens an iterator after a trimmed checkpoint, and then refuses every read from it.
    streams.on(GetShardIteratorCommand, { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '101' }).resolves({ ShardIterator: 'after-101' });
    streams.on(GetRecordsCommand, { ShardIterator: 'after-101' }).rejects(Object.assign(new Error('read past the oldest record'), { name: 'TrimmedDataAccessException' }));
    streams.on(GetShardIteratorCommand, { ShardIteratorType: 'TRIM_HORIZON' }).resolves({ ShardIterator: 'oldest' });
    streams.on(GetRecordsCommand, { ShardIterator: 'oldest' }).resolves({ Records: [auditInsert(7)], NextShardIterator: 'after-107' });
    streams.on(GetRecordsCommand, { ShardIterator: 'after-107' }).resolves({ Records: [], NextShardIterator: 'after-107' });

    const saved = new Map<string, string>([['shard-1', '101']]);
    const checkpoints = { load: async (_arn: string, shard: string) => saved.get(shard) ?? null, save: async (_arn: string, shard: string, sequence: string) => void saved.set(shard, sequence) };
    const handed: number[] = [];
    const errors: Array<{ name?: string }> = [];
    const handle = async (event: DynamoDBStreamEvent) => {
      handed.push(...event.Records.map((record) => Number(record.dynamodb?.Keys?.sk?.S?.slice('SEQ#'.length))));
      return { batchItemFailures: [] };
    };
    const poller = await new StreamPoller({ db: table, tableName: 't', endpoint: 'http://127.0.0.1:1', checkpoints, handle, pollIntervalMs: 5, onError: (error) => errors.push(error as Error) }).start();
    try {
      await waitFor(() => (handed.includes(7) ? true : undefined), 5_000, 'the records kept after the trimmed checkpoint');
    } finally {
      await poller.stop();
    }
    expect(handed).toEqual([7]);
    expect(saved.get('shard-1')).toBe('107');
    // The records trimmed between the checkpoint and the oldest kept are gone: said once, not silently.
    expect(errors.map((error) => error.name)).toEqual(['TrimmedDataAccessException']);
  });
});
