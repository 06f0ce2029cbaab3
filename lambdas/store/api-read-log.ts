import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiRead, ApiReadLog } from '#core/api-reads.ts';
import type { Documents } from './dynamo.ts';
import { toItem } from './items.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';

/**
 * Read records in their organisation's `APIREAD#` partition, off the audit chain: a plain put (no
 * sequence number, no condition, so reads never queue behind the chain head), deleted by the
 * table's TTL when their retention ends. The reading functions may only put here.
 */
export class DynamoApiReadLog implements ApiReadLog {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async record({ expiresAtEpoch, ...read }: ApiRead): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: toItem(keys.apiRead(read.orgId, read.id), 'api_read', read, { [TTL_ATTRIBUTE]: expiresAtEpoch }) }),
    );
  }
}
