import type { EventFeed, EventFeedPage, EventFeedQuery } from '#core/events.ts';
import type { AuditEntry } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { auditSortKey, keys } from './keys.ts';
import { boundedQuery, seqOfSortKey } from './bounded-query.ts';

const ENTRY_FIELDS = ['orgId', 'seq', 'type', 'occurredAt', 'actor', 'clientId', 'requestId', 'data', 'prevHash', 'hash'] as const;

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
      ':to': `${auditSortKey(0).slice(0, 4)}~`,
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
    const page = await boundedQuery(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ConsistentRead: true,
        ScanIndexForward: true,
      },
      query.limit,
      query.maxRead,
    );
    // Entries beyond limit + 1 are dropped; the caller pages on from the last one it returns.
    return { entries: page.items.map(toEntry), lastReadSeq: page.lastReadKey ? seqOfSortKey(page.lastReadKey.sk as string) : null, exhausted: page.exhausted };
  }
}

/** An audit entry as stored, without the item's own key attributes. */
export const toEntry = (item: Record<string, unknown>): AuditEntry => {
  const entry: Record<string, unknown> = {};
  for (const field of ENTRY_FIELDS) entry[field] = item[field] ?? null;
  return entry as unknown as AuditEntry;
};
