import * as z from 'zod/mini';
import type { Caller } from '../caller.ts';
import { EVENT_TYPES, isEventType, toEventObject, type EventFeed } from '../events.ts';
import { fieldError } from '../errors.ts';
import { queryInteger } from '../validation.ts';

/** Stored entries one GET /events reads at most, matching or not, so its latency does not grow with the chain. */
export const EVENT_FEED_MAX_READ = 1000;

/** GET /events query. */
export const listEventsQuery = z.strictObject({
  // At most 15 digits: far beyond any sequence number, and still an exact JavaScript number.
  since: z._default(z.string().check(z.regex(/^[0-9]{1,15}$/, 'Must be a string of 1 to 15 digits (a previous next_cursor).')), '0'),
  types: z.optional(
    z.pipe(
      z.string(),
      z.transform((value: string, context) => {
        const types = value.split(',').map((type) => type.trim());
        const unknown = types.filter((type) => !isEventType(type));
        if (unknown.length > 0 || types.length === 0) {
          context.issues.push({
            code: 'custom',
            message: `Must be a comma-separated list of event types (${EVENT_TYPES.join(', ')}); unknown: ${unknown.map((type) => JSON.stringify(type)).join(', ')}.`,
            input: value,
          });
          return z.NEVER;
        }
        return [...new Set(types)];
      }),
    ),
  ),
  limit: z._default(queryInteger(1, 200), 100),
});
export type ListEventsQuery = z.infer<typeof listEventsQuery>;

/**
 * GET /events: the organisation's events after `since`, in the order they happened, optionally of
 * some types only; a client-scoped key sees only its client's events. One call reads at most
 * EVENT_FEED_MAX_READ stored entries: when it stops there with fewer than `limit` events, it says
 * has_more and its cursor is the last entry read, so the next call starts past them.
 */
export const listEvents = async (deps: { events: EventFeed }, caller: Caller, query: ListEventsQuery) => {
  const since = Number(query.since);
  const page = await deps.events.read({
    orgId: caller.org.id,
    afterSeq: since,
    types: query.types ?? EVENT_TYPES,
    clientId: caller.apiKey.clientId ?? undefined,
    limit: query.limit,
    maxRead: EVENT_FEED_MAX_READ,
  });
  // A cursor past the newest entry was never answered by this feed (a typo, another environment's,
  // or one kept across a restore of the table): polling from it would skip every event up to it, unseen.
  if (page.entries.length === 0 && page.exhausted && since > 0) {
    const newest = await deps.events.newestSeq(caller.org.id);
    if (since > newest) throw fieldError('since', `No event has this cursor yet: the newest is ${newest}. Give a next_cursor this feed answered, or 0 to read from the start.`);
  }
  const entries = page.entries.slice(0, query.limit);
  const lastReturned = entries.length ? entries[entries.length - 1].seq : null;
  let hasMore: boolean;
  let cursor: number;
  if (page.entries.length > query.limit) {
    hasMore = true;
    cursor = lastReturned!;
  } else if (!page.exhausted) {
    hasMore = true;
    cursor = Math.max(page.lastReadSeq ?? since, lastReturned ?? since);
  } else {
    hasMore = false;
    cursor = lastReturned ?? since;
  }
  return {
    object: 'list' as const,
    data: entries.map(toEventObject),
    has_more: hasMore,
    next_cursor: String(cursor),
  };
};
