import type { AuditEntry } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { boundedQuery, seqOfSortKey } from './bounded-query.ts';

/** What an audit item holds beside its entry (store/audit-log.ts writes `{ ...key, kind, ...entry }`). */
const STORAGE = new Set(['pk', 'sk', 'kind']);

/**
 * The entry exactly as the chain hashed it, plus its hash: the item without its key and kind.
 * Every stored field is kept (a share's `shareId` included) and none is added, so the entry's
 * content can be hashed again and compared (core/audit-hash.ts).
 */
export const entryOfItem = (item: Record<string, unknown>): AuditEntry => {
  const entry: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!STORAGE.has(name)) entry[name] = value;
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
  return { entries: page.items.map(entryOfItem), lastReadSeq: page.lastReadKey ? seqOfSortKey(page.lastReadKey.sk as string) : null, exhausted: page.exhausted };
};
