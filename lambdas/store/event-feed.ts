import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EventFeed, EventFeedPage, EventFeedQuery } from '#core/events.ts';
import type { Documents } from './dynamo.ts';
import { AUDIT_ENTRY_PREFIX, auditSortKey, keys } from './keys.ts';
import { readChain } from './chain-read.ts';

/** A sort key past every entry of the chain (`SEQ#` and twelve digits), and before none of them. */
const AFTER_LAST_ENTRY = `${AUDIT_ENTRY_PREFIX}~`;

/**
 * The event feed: the organisation's audit entries after a sequence number, oldest first, read
 * from the base table with a strongly consistent query (never a GSI, so an event committed before
 * the call is always seen). The filter on type and client runs in DynamoDB, and `Limit` bounds
 * how many stored entries one call evaluates, matching or not: the work of a call does not grow
 * with the size of the chain.
 */
export class DynamoEventFeed implements EventFeed {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async read(query: EventFeedQuery): Promise<EventFeedPage> {
    const names: Record<string, string> = { '#type': 'type' };
    const values: Record<string, unknown> = {
      ':pk': keys.auditEntry(query.orgId, 0).pk,
      ':from': auditSortKey(query.afterSeq + 1),
      ':to': AFTER_LAST_ENTRY,
      ':kind': 'audit',
    };
    names['#kind'] = 'kind';
    const typeNames = query.types.map((type, index) => {
      values[`:t${index}`] = type;
      return `:t${index}`;
    });
    const filters = ['#kind = :kind', `#type IN (${typeNames.join(', ')})`];
    if (query.clientId !== undefined) {
      names['#client'] = 'clientId';
      values[':client'] = query.clientId;
      filters.push('#client = :client');
    }

    if (typeNames.length === 0) return { entries: [], lastReadSeq: null, exhausted: true };
    return readChain(this.db, this.tableName, { filters, names, values, oldestFirst: true, limit: query.limit, maxRead: query.maxRead });
  }

  /** The last entry of the chain's partition, read consistently: the newest a cursor can name. */
  async newestSeq(orgId: string): Promise<number> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.auditEntry(orgId, 0).pk, ':from': auditSortKey(1), ':to': AFTER_LAST_ENTRY },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return (Items?.[0]?.seq as number | undefined) ?? 0;
  }
}
