import { describe, expect, it } from 'vitest';
import type { Caller } from '../../lambdas/core/caller.ts';
import type { EventFeed, EventFeedQuery } from '../../lambdas/core/events.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';
import { EVENT_FEED_MAX_READ, listEvents, listEventsQuery } from '../../lambdas/core/use-cases/list-events.ts';

const caller = (clientId: string | null = null) =>
  ({ org: { id: 'org' }, apiKey: { id: 'key', name: 'k', clientId }, sourceIp: '127.0.0.1' }) as unknown as Caller;

const entry = (seq: number, type = 'request.created', clientId: string | null = 'c1'): AuditEntry => ({
  orgId: 'org', seq, type, occurredAt: '2026-01-01T00:00:00.000Z', actor: { type: 'api', label: 'k' }, clientId, requestId: null,
  data: { actor: { type: 'api', label: 'k' }, details: {} }, prevHash: '', hash: '',
});

/** A fake feed over an in-memory chain that honours limit, client, types and maxRead like the store. */
const fakeFeed = (chain: AuditEntry[]) => {
  const queries: EventFeedQuery[] = [];
  const feed: EventFeed = {
    read: async (query) => {
      queries.push(query);
      const after = chain.filter((e) => e.seq > query.afterSeq);
      const entries: AuditEntry[] = [];
      let read = 0;
      for (const e of after) {
        if (read >= query.maxRead || entries.length > query.limit) break;
        read++;
        if (query.types.includes(e.type) && (query.clientId === undefined || e.clientId === query.clientId)) entries.push(e);
      }
      const exhausted = read === after.length;
      return { entries, lastReadSeq: exhausted ? null : after[read - 1].seq, exhausted };
    },
    newestSeq: async () => chain.at(-1)?.seq ?? 0,
  };
  return { feed, queries };
};

const parse = (query: Record<string, string>) => listEventsQuery.parse(query);

describe('listEvents', () => {
  it('answers a page with has_more and the last seq returned, then the rest', async () => {
    const { feed } = fakeFeed([1, 2, 3, 4, 5].map((seq) => entry(seq)));
    const first = await listEvents({ events: feed }, caller(), parse({ limit: '2' }));
    expect(first.data.map((e) => e.seq)).toEqual([1, 2]);
    expect(first).toMatchObject({ object: 'list', has_more: true, next_cursor: '2' });
    const last = await listEvents({ events: feed }, caller(), parse({ since: '4', limit: '2' }));
    expect(last.data.map((e) => e.seq)).toEqual([5]);
    expect(last).toMatchObject({ has_more: false, next_cursor: '5' });
    const empty = await listEvents({ events: feed }, caller(), parse({ since: '5' }));
    expect(empty).toEqual({ object: 'list', data: [], has_more: false, next_cursor: '5' });
  });

  it('asks the store for event types only (or the given ones), the key\'s client, and a bounded read', async () => {
    const { feed, queries } = fakeFeed([]);
    await listEvents({ events: feed }, caller('c9'), parse({}));
    expect(queries[0]).toMatchObject({ orgId: 'org', afterSeq: 0, clientId: 'c9', limit: 100, maxRead: EVENT_FEED_MAX_READ });
    expect(queries[0].types).toContain('request.created');
    expect(queries[0].types).not.toContain('api_key.created');
    await listEvents({ events: feed }, caller(), parse({ types: 'request.revoked, request.revoked,member.disabled' }));
    expect(queries[1]).toMatchObject({ clientId: undefined, types: ['request.revoked', 'member.disabled'] });
  });

  it('stops at the read bound with has_more and the last read seq as the cursor', async () => {
    const chain = Array.from({ length: 2500 }, (_, i) => entry(i + 1, 'subject.verified'));
    chain.push(entry(2501));
    const { feed } = fakeFeed(chain);
    const first = await listEvents({ events: feed }, caller(), parse({}));
    expect(first).toEqual({ object: 'list', data: [], has_more: true, next_cursor: String(EVENT_FEED_MAX_READ) });
    const second = await listEvents({ events: feed }, caller(), parse({ since: first.next_cursor }));
    expect(second.has_more).toBe(true);
    const third = await listEvents({ events: feed }, caller(), parse({ since: second.next_cursor }));
    expect(third.data.map((e) => e.seq)).toEqual([2501]);
    expect(third).toMatchObject({ has_more: false, next_cursor: '2501' });
  });
});
