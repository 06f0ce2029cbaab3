import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Documents } from '#store/dynamo.ts';

export const POLL_INTERVAL_MS = 250;
/** Shards are looked for again every this many polls (new shards appear as old ones close). */
const DESCRIBE_EVERY = 20;
const MAX_RETRIES = 3;

export interface StreamPollerOptions {
  db: Documents;
  tableName: string;
  endpoint: string;
  /** The fan-out handler, called with a DynamoDBStreamEvent as Lambda would. */
  handle(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse>;
  onError?: (error: unknown) => void;
  pollIntervalMs?: number;
}

/**
 * Stands in for the Lambda event source mapping locally: reads DynamoDB Local's real stream of the
 * table (DescribeStream, GetShardIterator, GetRecords), following shard changes, and hands the
 * records to the same fan-out handler, with the deployed filter (new audit items) applied here.
 * Records the handler reports as failed are handed over again, a few times.
 */
export class StreamPoller {
  private readonly client: DynamoDBStreamsClient;
  private readonly iterators = new Map<string, string>();
  private readonly seen = new Set<string>();
  private streamArn: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polls = 0;
  private running: Promise<void> | null = null;
  private stopped = false;
  private retry: Array<{ record: DynamoDBRecord; tries: number }> = [];

  constructor(private readonly options: StreamPollerOptions) {
    this.client = new DynamoDBStreamsClient({
      endpoint: options.endpoint,
      region: process.env.AWS_REGION ?? 'eu-west-2',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }

  /** Starts from the stream's current end (LATEST on the open shards). */
  async start() {
    const { Table } = await this.options.db.send(new DescribeTableCommand({ TableName: this.options.tableName }));
    this.streamArn = Table?.LatestStreamArn ?? null;
    if (!this.streamArn) throw new Error(`table ${this.options.tableName} has no stream`);
    await this.discover('LATEST');
    this.schedule();
    return this;
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.client.destroy();
  }

  private schedule() {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => this.schedule());
    }, this.options.pollIntervalMs ?? POLL_INTERVAL_MS);
    this.timer.unref();
  }

  /** Opens an iterator on every shard not seen before: `first` at start, TRIM_HORIZON for new ones. */
  private async discover(first: 'LATEST' | 'TRIM_HORIZON') {
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn!, ExclusiveStartShardId: start }));
      for (const shard of StreamDescription?.Shards ?? []) {
        const shardId = shard.ShardId!;
        if (this.seen.has(shardId)) continue;
        this.seen.add(shardId);
        // At start, closed shards hold only the past.
        if (first === 'LATEST' && shard.SequenceNumberRange?.EndingSequenceNumber) continue;
        const { ShardIterator } = await this.client.send(
          new GetShardIteratorCommand({ StreamArn: this.streamArn!, ShardId: shardId, ShardIteratorType: first }),
        );
        if (ShardIterator) this.iterators.set(shardId, ShardIterator);
      }
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
  }

  private async poll() {
    if (this.stopped) return;
    if (++this.polls % DESCRIBE_EVERY === 0 || this.iterators.size === 0) await this.discover('TRIM_HORIZON');
    const batch: DynamoDBRecord[] = this.retry.map((r) => r.record);
    const tries = new Map(this.retry.map((r) => [r.record.eventID!, r.tries]));
    this.retry = [];
    for (const [shardId, iterator] of [...this.iterators]) {
      const { Records, NextShardIterator } = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator }));
      if (NextShardIterator) this.iterators.set(shardId, NextShardIterator);
      else this.iterators.delete(shardId); // closed: its children are found by the next discovery
      for (const record of Records ?? []) if (isNewAuditItem(record)) batch.push(toLambdaRecord(record, this.streamArn!));
    }
    if (batch.length === 0 || this.stopped) return;
    const { batchItemFailures } = await this.options.handle({ Records: batch });
    for (const failure of batchItemFailures) {
      const record = batch.find((r) => r.eventID === failure.itemIdentifier);
      const count = (tries.get(failure.itemIdentifier) ?? 0) + 1;
      if (record && count <= MAX_RETRIES) this.retry.push({ record, tries: count });
    }
  }
}

/** The deployed event source mapping's filter: eventName INSERT and NewImage.kind.S = 'audit'. */
export const isNewAuditItem = (record: StreamRecord) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.kind?.S === 'audit';

const toLambdaRecord = (record: StreamRecord, streamArn: string): DynamoDBRecord => ({
  eventID: record.eventID,
  eventName: record.eventName as DynamoDBRecord['eventName'],
  eventVersion: record.eventVersion,
  eventSource: 'aws:dynamodb',
  awsRegion: record.awsRegion,
  eventSourceARN: streamArn,
  dynamodb: {
    Keys: record.dynamodb?.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
    NewImage: record.dynamodb?.NewImage as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
    SequenceNumber: record.dynamodb?.SequenceNumber,
    SizeBytes: record.dynamodb?.SizeBytes,
    StreamViewType: record.dynamodb?.StreamViewType as NonNullable<DynamoDBRecord['dynamodb']>['StreamViewType'],
    ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime ? record.dynamodb.ApproximateCreationDateTime.getTime() / 1000 : undefined,
  },
});
