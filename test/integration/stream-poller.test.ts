/**
 * The local stream poller on DynamoDB Local's real stream: it hands only new audit items to the
 * handler, hands a failed record over again until it succeeds (never dropping it), keeps its
 * checkpoint before a record still failing, and a new poller resumes after the checkpoint. A
 * busy stream is read again without the idle pause, so events written while a batch is handled
 * wait for no poll interval.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableStreamCheckpoints } from '../../lambdas/local/stream-checkpoints.ts';
import { StreamPoller } from '../../lambdas/local/stream-poller.ts';
import { waitFor } from '../support/local-process.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ stream: true });
});
afterAll(async () => {
  await service?.stop();
});

const put = (item: Record<string, unknown>) => service.deps.db.send(new PutCommand({ TableName: service.deps.tableName, Item: item }));
const auditItem = (seq: number) => put({ pk: 'AUDIT#poller-test', sk: `SEQ#${seq}`, kind: 'audit', orgId: 'poller-test', seq, type: 'request.created' });
// The stream holds keys only: the entry's number is in its sort key.
const seqOf = (record: DynamoDBRecord) => Number(record.dynamodb?.Keys?.sk?.S?.slice('SEQ#'.length));
/** Stream sequence numbers by audit seq, as the handler saw them. */
const sequenceOf = new Map<number, string>();

describe('StreamPoller', () => {
  it('hands a failing record over until it succeeds, checkpoints before it meanwhile, and resumes after the checkpoint', async () => {
    const checkpoints = new TableStreamCheckpoints(service.deps.db, service.deps.tableName);
    const saved: string[] = [];
    const recording = { load: checkpoints.load.bind(checkpoints), save: async (arn: string, shard: string, sequenceNumber: string) => (saved.push(sequenceNumber), checkpoints.save(arn, shard, sequenceNumber)) };
    const handed: number[] = [];
    let failuresLeft = 5;
    const handle = async (event: DynamoDBStreamEvent) => {
      for (const record of event.Records) sequenceOf.set(seqOf(record), record.dynamodb!.SequenceNumber!);
      handed.push(...event.Records.map(seqOf));
      const failing = event.Records.find((record) => seqOf(record) === 2);
      if (failing && failuresLeft-- > 0) return { batchItemFailures: [{ itemIdentifier: failing.dynamodb!.SequenceNumber! }] };
      return { batchItemFailures: [] };
    };
    const options = { db: service.deps.db, tableName: service.deps.tableName, endpoint: service.dynamoEndpoint, checkpoints: recording, handle, pollIntervalMs: 20 };
    const first = await new StreamPoller(options).start();
    await auditItem(1);
    await put({ pk: 'REQ#not-audit', sk: 'REQ', kind: 'request' });
    await auditItem(2);
    await auditItem(3);

    await waitFor(() => (handed.filter((seq) => seq === 2).length === 6 ? true : undefined), 20_000, 'record 2 to succeed');
    await waitFor(() => (handed.includes(3) ? true : undefined));
    // Five failures, then a success: more tries than any fixed limit would give, and nothing lost.
    expect(handed.filter((seq) => seq === 1)).toHaveLength(1);
    expect(handed.filter((seq) => seq === 3).length).toBeGreaterThanOrEqual(1);
    await waitFor(() => (saved.length > 0 && saved.at(-1) === sequenceOf.get(3) ? true : undefined), 5_000, 'the checkpoint after record 3');
    // While record 2 kept failing, the checkpoint never went past record 1.
    expect(saved.slice(0, -1).every((sequenceNumber) => BigInt(sequenceNumber) < BigInt(sequenceOf.get(2)!))).toBe(true);
    await first.stop();

    // A new poller (a restart) over the same checkpoints hands over only what came after.
    handed.length = 0;
    const second = await new StreamPoller(options).start();
    await auditItem(4);
    await waitFor(() => (handed.includes(4) ? true : undefined), 10_000, 'record 4');
    await second.stop();
    expect(handed).toEqual([4]);
  }, 60_000);

  it('reads again at once after a batch it handled, without the idle pause', async () => {
    const handedAt = new Map<number, number>();
    const handle = async (event: DynamoDBStreamEvent) => {
      for (const record of event.Records) handedAt.set(seqOf(record), Date.now());
      // The next event is written while this batch is being handled, as an API call would.
      if (event.Records.some((record) => seqOf(record) === 11)) await auditItem(12);
      return { batchItemFailures: [] };
    };
    const idleMs = 3_000;
    const poller = await new StreamPoller({ db: service.deps.db, tableName: service.deps.tableName, endpoint: service.dynamoEndpoint, handle, pollIntervalMs: idleMs }).start();
    try {
      await auditItem(11);
      await waitFor(() => (handedAt.has(12) ? true : undefined), 20_000, 'record 12');
      // Handed over well inside the idle interval after the batch that wrote it.
      expect(handedAt.get(12)! - handedAt.get(11)!).toBeLessThan(idleMs / 2);
    } finally {
      await poller.stop();
    }
  }, 60_000);
});
