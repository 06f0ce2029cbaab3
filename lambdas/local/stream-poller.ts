import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_ENGINE_REGION, localEngineCredentials, type Documents } from '#store/dynamo.ts';
import { AUDIT_ENTRY_PREFIX, AUDIT_PARTITION_PREFIX } from '#store/keys.ts';
import type { StreamCheckpoints } from './stream-checkpoints.ts';

export const POLL_INTERVAL_MS = 250;
/** Shards are looked for again every this many polls (new shards appear as old ones close). */
const DESCRIBE_EVERY = 20;

export interface StreamPollerOptions {
  db: Documents;
  tableName: string;
  endpoint: string;
  /** The fan-out handler, called with a DynamoDBStreamEvent as Lambda would. */
  handle(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse>;
  /** Where each shard was got to; without them every start replays the stream from its oldest record. */
  checkpoints?: StreamCheckpoints;
  onError?: (error: unknown) => void;
  pollIntervalMs?: number;
}

interface PendingRecord {
  record: DynamoDBRecord;
  shardId: string;
}

/**
 * Stands in for the Lambda event source mapping locally: reads DynamoDB Local's real stream of the
 * table (DescribeStream, GetShardIterator, GetRecords), following shard changes, and hands the
 * records to the same fan-out handler, with the deployed filter (new audit items) applied here.
 * Records the handler reports as failed (by sequence number, as Lambda expects) are handed over
 * again at every poll, with the records after them in their shard, until they succeed: the fan-out fails only when storage does, and dropping a
 * record would lose its event (deployed, the mapping retries and then keeps it in a dead-letter
 * queue instead).
 *
 * It resumes where it left off: after each batch it saves, per shard, the sequence number up to
 * which every audit record was handled (never past one still waiting for a retry), and a restart
 * reads on from there; a shard with no checkpoint is read from its oldest record. A process killed
 * between the handler and the save hands the same records over again, which the fan-out absorbs
 * (a delivery's id is derived from webhook and event, and it is created only once).
 */
/** GetRecords refusals that an iterator opened again cures. */
const REOPEN_ON = new Set(['TrimmedDataAccessException', 'ExpiredIteratorException']);

export class StreamPoller {
  private readonly client: DynamoDBStreamsClient;
  private readonly iterators = new Map<string, string>();
  private readonly seen = new Set<string>();
  private streamArn: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polls = 0;
  private running: Promise<void> | null = null;
  private stopped = false;
  private retry: PendingRecord[] = [];
  private readonly saved = new Map<string, string>();
  /** Shards opened again at their checkpoint after GetRecords answered TrimmedDataAccessException, until a read succeeds. */
  private readonly reopenedAfterTrim = new Set<string>();

  constructor(private readonly options: StreamPollerOptions) {
    this.client = new DynamoDBStreamsClient({
      endpoint: options.endpoint,
      region: LOCAL_ENGINE_REGION,
      credentials: localEngineCredentials(),
    });
  }

  /** Starts from each shard's checkpoint, or from its oldest record. */
  async start() {
    const { Table } = await this.options.db.send(new DescribeTableCommand({ TableName: this.options.tableName }));
    this.streamArn = Table?.LatestStreamArn ?? null;
    if (!this.streamArn) throw new Error(`table ${this.options.tableName} has no stream`);
    await this.discover();
    this.schedule();
    return this;
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.client.destroy();
  }

  /**
   * The next poll: at once after a poll that handled records (more may have been written
   * meanwhile; a Lambda event source mapping too reads a busy shard again without pausing), else
   * after the poll interval.
   */
  private schedule(afterMs = this.options.pollIntervalMs ?? POLL_INTERVAL_MS) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let foundRecords = false;
      this.running = this.poll()
        .then((found) => {
          foundRecords = found;
        })
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => this.schedule(foundRecords ? 0 : undefined));
    }, afterMs);
    this.timer.unref();
  }

  /** Opens an iterator on every shard not seen before, after its checkpoint if it has one. */
  private async discover() {
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn!, ExclusiveStartShardId: start }));
      for (const shard of StreamDescription?.Shards ?? []) {
        const shardId = shard.ShardId!;
        if (this.seen.has(shardId)) continue;
        this.seen.add(shardId);
        const iterator = await this.openIterator(shardId);
        if (iterator) this.iterators.set(shardId, iterator);
      }
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
  }

  private async openIterator(shardId: string) {
    const checkpoint = (await this.options.checkpoints?.load(this.streamArn!, shardId)) ?? null;
    if (checkpoint) {
      this.saved.set(shardId, checkpoint);
      try {
        const { ShardIterator } = await this.client.send(
          new GetShardIteratorCommand({ StreamArn: this.streamArn!, ShardId: shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint }),
        );
        return ShardIterator;
      } catch (error) {
        // The checkpoint's record has been trimmed away: everything still there is newer.
        if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
      }
    }
    return this.openAtOldest(shardId);
  }

  /** One poll of every shard; true when it handed records to the handler and every one was handled. */
  private async poll(): Promise<boolean> {
    if (this.stopped) return false;
    if (++this.polls % DESCRIBE_EVERY === 0 || this.iterators.size === 0) await this.discover();
    // Records waiting for a retry go first: they are older than anything read now.
    const batch: PendingRecord[] = this.retry;
    this.retry = [];
    for (const [shardId, iterator] of [...this.iterators]) {
      const read = await this.readShard(shardId, iterator);
      if (!read) continue;
      const { Records, NextShardIterator } = read;
      if (NextShardIterator) this.iterators.set(shardId, NextShardIterator);
      else this.iterators.delete(shardId); // closed: its children are found by the next discovery
      for (const record of Records ?? []) if (isNewAuditItem(record)) batch.push({ record: toLambdaRecord(record, this.streamArn!), shardId });
    }
    if (batch.length === 0 || this.stopped) return false;
    const { batchItemFailures } = await this.options.handle({ Records: batch.map((pending) => pending.record) });
    const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
    // As Lambda does: a shard is retried from its first failed record on, the records after it
    // included (an empty identifier means the whole batch failed).
    const retryingShards = new Set<string>();
    this.retry = batch.filter((pending) => {
      if (failed.has('') || failed.has(pending.record.dynamodb?.SequenceNumber ?? '')) retryingShards.add(pending.shardId);
      return retryingShards.has(pending.shardId);
    });
    await this.saveCheckpoints(batch);
    // A failed record is retried after the interval, not in a tight loop while storage is down.
    return this.retry.length === 0;
  }

  /**
   * One GetRecords on a shard. An iterator that points where the stream has been trimmed (DynamoDB
   * Local trims a table's stream as it pleases, and drops every record older than 24 hours, as
   * DynamoDB does) or that has expired is opened again from the shard's checkpoint (or its oldest
   * record, when the checkpoint is gone too), as a Lambda event source mapping does: at least once,
   * and nothing after the checkpoint is skipped. The shard is read again on the next poll.
   *
   * The checkpoint's own record can be trimmed away too (the service stopped for more than 24
   * hours): DynamoDB Local then still opens an iterator after it, but refuses every read from it.
   * A shard refused again right after being opened at its checkpoint is opened at its oldest
   * record, and the refusal is reported (the records trimmed meanwhile are gone: `refan-events`
   * makes their deliveries from the audit chain); reading from the checkpoint again and again would
   * stop every delivery for good.
   */
  private async readShard(shardId: string, iterator: string) {
    try {
      const read = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator }));
      this.reopenedAfterTrim.delete(shardId);
      return read;
    } catch (error) {
      if (!REOPEN_ON.has((error as Error).name)) throw error;
      const trimmed = (error as Error).name === 'TrimmedDataAccessException';
      const checkpointTrimmed = trimmed && this.reopenedAfterTrim.has(shardId);
      const reopened = checkpointTrimmed ? await this.openAtOldest(shardId) : await this.openIterator(shardId);
      if (checkpointTrimmed) {
        this.reopenedAfterTrim.delete(shardId);
        this.options.onError?.(error);
      } else if (trimmed) this.reopenedAfterTrim.add(shardId);
      if (reopened) this.iterators.set(shardId, reopened);
      else this.iterators.delete(shardId);
      return null;
    }
  }

  private async openAtOldest(shardId: string) {
    const { ShardIterator } = await this.client.send(
      new GetShardIteratorCommand({ StreamArn: this.streamArn!, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    return ShardIterator;
  }

  /** Per shard, the last record of the batch before the first one still waiting for a retry. */
  private async saveCheckpoints(batch: PendingRecord[]) {
    if (!this.options.checkpoints) return;
    const waiting = new Set(this.retry);
    const blocked = new Set<string>();
    const reached = new Map<string, string>();
    for (const pending of batch) {
      const { record, shardId } = pending;
      if (blocked.has(shardId)) continue;
      if (waiting.has(pending)) blocked.add(shardId);
      else if (record.dynamodb?.SequenceNumber) reached.set(shardId, record.dynamodb.SequenceNumber);
    }
    for (const [shardId, sequenceNumber] of reached) {
      if (this.saved.get(shardId) === sequenceNumber) continue;
      await this.options.checkpoints.save(this.streamArn!, shardId, sequenceNumber);
      this.saved.set(shardId, sequenceNumber);
    }
  }
}

/** The deployed event source mapping's filter (lib/webhooks.ts): eventName INSERT of an audit entry's key (the stream holds keys only). */
export const isNewAuditItem = (record: StreamRecord) =>
  record.eventName === 'INSERT' &&
  (record.dynamodb?.Keys?.pk?.S ?? '').startsWith(AUDIT_PARTITION_PREFIX) &&
  (record.dynamodb?.Keys?.sk?.S ?? '').startsWith(AUDIT_ENTRY_PREFIX);

const toLambdaRecord = (record: StreamRecord, streamArn: string): DynamoDBRecord => ({
  eventID: record.eventID,
  eventName: record.eventName as DynamoDBRecord['eventName'],
  eventVersion: record.eventVersion,
  eventSource: 'aws:dynamodb',
  awsRegion: record.awsRegion,
  eventSourceARN: streamArn,
  dynamodb: {
    Keys: record.dynamodb?.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
    SequenceNumber: record.dynamodb?.SequenceNumber,
    SizeBytes: record.dynamodb?.SizeBytes,
    StreamViewType: record.dynamodb?.StreamViewType as NonNullable<DynamoDBRecord['dynamodb']>['StreamViewType'],
    ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime ? record.dynamodb.ApproximateCreationDateTime.getTime() / 1000 : undefined,
  },
});
