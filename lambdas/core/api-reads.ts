import type { Caller } from './caller.ts';
import { newId } from './ids.ts';

/**
 * What a read through an API key leaves behind (SPEC.md, Authentication: every API action is
 * audited with the key's name). Changes are audited on the organisation's hash chain in their own
 * transaction; reads change nothing, so they are not chain entries (a GET would then take the
 * chain head's sequence number and serialise with every write of its organisation). Each read
 * instead leaves one read record beside the chain, kept for a fixed time, so a leaked key that
 * enumerates an organisation's requests shows in the app's audit log.
 */

/** How long a read record is kept; the table's TTL deletes it after. */
export const API_READ_RETENTION_DAYS = 90;

/**
 * Ids one record names at most, all lists together: a full page of GET /v1/requests (100), so a
 * page read is always named in full, and a record stays near 3 KB (three write units).
 */
export const API_READ_MAX_IDS = 100;

/** What one read returned, as the endpoint reports it. */
export interface ReadRecords {
  requests?: readonly string[];
  shares?: readonly string[];
  webhooks?: readonly string[];
  /** GET /v1/events: how many events the page held, and the first and last of them (`evt_<seq>`). */
  events?: { count: number; first?: string; last?: string };
}

/** What a page of records (requests, webhooks) names: their ids, in the order read. */
export const idsOf = (page: ReadonlyArray<{ id: string }>) => page.map((item) => item.id);

/** What a page of events names: how many, and the first and last (event ids follow the chain's order, so the page lies between them). */
export const eventsRead = (page: ReadonlyArray<{ id: string }>): ReadRecords => ({
  events: page.length ? { count: page.length, first: page[0]!.id, last: page[page.length - 1]!.id } : { count: 0 },
});

/** The records as stored: the id lists bounded, `omitted` counting the ids left out. */
export interface BoundedReadRecords {
  requests?: string[];
  shares?: string[];
  webhooks?: string[];
  events?: { count: number; first?: string; last?: string };
  omitted?: number;
}

/**
 * The answers a read record is written for: a read served, and a read refused after the key was
 * accepted and its call admitted by the rate limiter (the key lacks the scope, the plan or the
 * address; the record is not there or not the key's client's).
 */
export type ReadOutcome = 200 | 403 | 404;
export const RECORDED_REFUSALS: ReadonlySet<number> = new Set([403, 404]);

export interface ApiRead {
  /** A ULID made at `occurredAt`: the records of an organisation sort by time. */
  id: string;
  orgId: string;
  occurredAt: string;
  key: { id: string; name: string };
  /** The key's client scope, null for a key that sees every client. */
  clientId: string | null;
  /** Method and path template, `GET /v1/requests/{id}`. */
  route: string;
  status: ReadOutcome;
  /** The caller's address as the gateway saw it (never X-Forwarded-For). */
  sourceIp: string;
  records: BoundedReadRecords;
  /** When the table's TTL may delete it (epoch seconds). */
  expiresAtEpoch: number;
}

/** Where read records go; the reading functions may only add to it. */
export interface ApiReadLog {
  record(read: ApiRead): Promise<void>;
}

/** Longer than any route template or IPv6 address: a cap, not a format. */
const MAX_TEXT = 100;

const ID_LISTS = ['requests', 'shares', 'webhooks'] as const;

/** The id lists cut to API_READ_MAX_IDS in all (first lists first, each in the order read), the rest counted. */
export const boundedRecords = (records: ReadRecords): BoundedReadRecords => {
  const bounded: BoundedReadRecords = {};
  let room = API_READ_MAX_IDS;
  let omitted = 0;
  for (const list of ID_LISTS) {
    const ids = records[list];
    if (!ids) continue;
    const unique = [...new Set(ids)];
    bounded[list] = unique.slice(0, room);
    omitted += Math.max(0, unique.length - room);
    room = Math.max(0, room - unique.length);
  }
  if (records.events) bounded.events = { ...records.events };
  if (omitted > 0) bounded.omitted = omitted;
  return bounded;
};

/** The record of one read by `caller` at `at`. */
export const apiReadOf = (caller: Caller, read: { route: string; status: ReadOutcome; records: ReadRecords }, at: Date): ApiRead => ({
  id: newId(at.getTime()),
  orgId: caller.org.id,
  occurredAt: at.toISOString(),
  key: { id: caller.apiKey.id, name: caller.apiKey.name },
  clientId: caller.apiKey.clientId,
  route: read.route.slice(0, MAX_TEXT),
  status: read.status,
  sourceIp: caller.sourceIp.slice(0, MAX_TEXT),
  records: boundedRecords(read.records),
  expiresAtEpoch: Math.floor(at.getTime() / 1000) + API_READ_RETENTION_DAYS * 86_400,
});
