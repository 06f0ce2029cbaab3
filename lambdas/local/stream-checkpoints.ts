import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Documents } from '#store/dynamo.ts';

/** Where the local stream poller got to in each shard, so a restart resumes there. */
export interface StreamCheckpoints {
  /** The sequence number of the last record handled in the shard, or null when none was. */
  load(streamArn: string, shardId: string): Promise<string | null>;
  save(streamArn: string, shardId: string, sequenceNumber: string): Promise<void>;
}

/**
 * Checkpoints kept in the table itself (`LOCAL#STREAM` / `CHECKPOINT#<stream>#<shard>`), so they
 * live and die with the data they describe: a wiped or in-memory table starts over with them.
 * Deployed, the Lambda event source mapping keeps its own position and these items never exist.
 * Their own stream records are not audit items, so the poller skips them.
 */
export class TableStreamCheckpoints implements StreamCheckpoints {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async load(streamArn: string, shardId: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: checkpointKey(streamArn, shardId), ConsistentRead: true }));
    return typeof Item?.sequenceNumber === 'string' ? Item.sequenceNumber : null;
  }

  async save(streamArn: string, shardId: string, sequenceNumber: string) {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: { ...checkpointKey(streamArn, shardId), kind: 'stream_checkpoint', sequenceNumber } }),
    );
  }
}

const checkpointKey = (streamArn: string, shardId: string) => ({ pk: 'LOCAL#STREAM', sk: `CHECKPOINT#${streamArn}#${shardId}` });
