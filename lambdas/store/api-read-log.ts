import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiRead } from '#core/api-reads.ts';
import type { Documents } from './dynamo.ts';
import { toItem } from './items.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';

/** DynamoDB's limit of items in one BatchWriteItem. */
const BATCH_LIMIT = 25;
/** Rounds of unprocessed items (DynamoDB throttling) sent again before the store gives up and its caller retries. */
const UNPROCESSED_ROUNDS = 5;

/**
 * Read records in their organisation's `APIREAD#` partition, off the audit chain, deleted by the
 * table's TTL when their retention ends. Only the recorder writes here (the reading functions
 * hand their records over as log lines, adapters/api-read-lines.ts); a record's key is its id, so
 * a batch stored twice (a retried delivery of the same lines) leaves each record once.
 */
export class DynamoApiReadStore {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async storeAll(reads: readonly ApiRead[]): Promise<void> {
    // A record repeated within one batch would fail it (DynamoDB refuses duplicate keys in a batch).
    const unique = [...new Map(reads.map((read) => [read.id, read])).values()];
    for (let start = 0; start < unique.length; start += BATCH_LIMIT) {
      let requests = unique.slice(start, start + BATCH_LIMIT).map(({ expiresAtEpoch, ...read }) => ({
        PutRequest: { Item: toItem(keys.apiRead(read.orgId, read.id), 'api_read', read, { [TTL_ATTRIBUTE]: expiresAtEpoch }) },
      }));
      for (let round = 0; requests.length > 0; round++) {
        if (round === UNPROCESSED_ROUNDS) throw new Error(`${requests.length} read records left unprocessed by DynamoDB`);
        if (round > 0) await new Promise((wait) => setTimeout(wait, 50 * 2 ** round));
        const answer = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (answer.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
    }
  }
}
