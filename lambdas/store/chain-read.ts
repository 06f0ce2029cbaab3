import type { AuditEntry } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { boundedQuery, seqOfSortKey } from './bounded-query.ts';

const ENTRY_FIELDS = ['orgId', 'seq', 'type', 'occurredAt', 'actor', 'clientId', 'requestId', 'data', 'prevHash', 'hash'] as const;

/** An audit entry as stored, without the item's own key attributes. */
const toEntry = (item: Record<string, unknown>): AuditEntry => {
  const entry: Record<string, unknown> = {};
  for (const field of ENTRY_FIELDS) entry[field] = item[field] ?? null;
  return entry as unknown as AuditEntry;
};

/** What `readChain` is given: the chain's partition and range in `values` (`:pk`, `:from`, `:to`), the filters on entries. */
export interface ChainRange {
  filters: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
  oldestFirst: boolean;
  limit: number;
  maxRead: number;
}

/**
 * An organisation's audit entries between `:from` and `:to`, strongly consistent, filtered in
 * DynamoDB and bounded by `maxRead` stored entries (bounded-query.ts), in one direction: the event
 * feed reads it oldest first, the member application's audit log newest first.
 */
export const readChain = async (db: Documents, tableName: string, range: ChainRange) => {
  const page = await boundedQuery(
    db,
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      FilterExpression: range.filters.join(' AND '),
      ExpressionAttributeNames: range.names,
      ExpressionAttributeValues: range.values,
      ConsistentRead: true,
      ScanIndexForward: range.oldestFirst,
    },
    range.limit,
    range.maxRead,
  );
  // Entries beyond limit + 1 are dropped; the caller pages on from the last one it returns.
  return { entries: page.items.map(toEntry), lastReadSeq: page.lastReadKey ? seqOfSortKey(page.lastReadKey.sk as string) : null, exhausted: page.exhausted };
};
