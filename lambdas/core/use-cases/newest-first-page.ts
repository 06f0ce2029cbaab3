import * as z from 'zod/mini';
import { queryInteger } from '../validation.ts';

/**
 * `limit` of the app's newest-first lists (the audit log's two views, a webhook's deliveries): 1 to
 * 200, so one call's work stays bounded whatever a caller asks.
 */
export const pageLimit = (defaultLimit: number) => z._default(queryInteger(1, 200), defaultLimit);

/**
 * A page of a newest-first log read within a bound of stored items (store/bounded-query.ts), as the
 * app's audit log pages both the chain and the API read records: the first `limit` of what matched
 * (the store returns one more when there is more), and where the next page starts: after the last
 * one shown when more matched, after the last item read when the read bound stopped it first,
 * nowhere when the log ran out.
 */
export const newestFirstPage = <Item, Cursor>(
  read: { matched: Item[]; lastRead: Cursor | null; exhausted: boolean },
  limit: number,
  cursorOf: (item: Item) => Cursor,
) => {
  const shown = read.matched.slice(0, limit);
  const next = read.matched.length > limit ? cursorOf(shown[shown.length - 1]!) : !read.exhausted && read.lastRead !== null ? read.lastRead : null;
  return { shown, next };
};

/** The instant the day after `day` starts: a `to` day filter includes its whole day. */
export const dayAfter = (day: Date) => new Date(day.getTime() + 86_400_000).toISOString();
