import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Documents } from './dynamo.ts';

/** Never ask DynamoDB to evaluate fewer items than this in one page (a filter may drop most of them). */
const MIN_PAGE = 100;

/**
 * A filtered Query read page after page until `limit + 1` items matched (one more than asked, so
 * the caller knows there are more) or `maxRead` stored items were evaluated, matching or not: the
 * work of one call does not grow with the partition. `lastReadKey` is where it stopped reading,
 * `read` how many stored items it evaluated.
 */
export const boundedQuery = async (db: Documents, input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>, limit: number, maxRead: number) => {
  const items: Array<Record<string, unknown>> = [];
  let read = 0;
  let lastReadKey: Record<string, unknown> | undefined;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({ ...input, Limit: Math.min(maxRead - read, Math.max(limit + 1 - items.length, MIN_PAGE)), ExclusiveStartKey: start }),
    );
    read += page.ScannedCount ?? 0;
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
    if (start) lastReadKey = start;
  } while (start && items.length <= limit && read < maxRead);
  return { items: items.slice(0, limit + 1), lastReadKey, exhausted: !start, read };
};

/** The sequence number in an audit entry's sort key (`SEQ#000000000042`). */
export const seqOfSortKey = (sk: string) => Number(sk.slice(sk.indexOf('#') + 1));
