import * as z from 'zod/mini';
import { validationFailed } from '../errors.ts';
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

/**
 * A `from`/`to` day filter (UTC) as the instants it runs between: `to` includes its whole day, up
 * to the start of the next (none after 9999-12-31, which ISO text cannot write in four digits). A
 * `from` after `to` could match nothing: 422 on `from`.
 */
export const dayRange = (query: { from?: Date; to?: Date }): { fromIso?: string; toIso?: string } => {
  if (query.from && query.to && query.from > query.to) throw validationFailed({ from: ['Must be on or before to.'] });
  const next = query.to ? new Date(query.to.getTime() + 86_400_000) : undefined;
  return { fromIso: query.from?.toISOString(), toIso: next && next.getUTCFullYear() <= 9999 ? next.toISOString() : undefined };
};
