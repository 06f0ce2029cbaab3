import * as z from 'zod/mini';
import { UNKNOWN_QUERY_PARAMETER } from '../query-words.ts';
import { API_READ_RETENTION_DAYS, type ApiRead } from '../api-reads.ts';
import type { Clock } from '../clock.ts';
import { requireManager, type MemberCaller } from '../member-access.ts';
import { parseOrThrow, queryDay, ulidString } from '../validation.ts';
import { dayRange, newestFirstPage, pageLimit } from './newest-first-page.ts';

/** Stored records one call reads at most, matching or not, as the chain view does. */
export const API_READ_VIEW_MAX_READ = 1000;

/** A read record as the store returns it. */
export type StoredApiRead = Omit<ApiRead, 'expiresAtEpoch'>;

export interface ApiReadQuery {
  orgId: string;
  /** Records made before this one only (its id); newest first from there. */
  beforeId?: string;
  keyId?: string;
  /** Records naming this request. */
  requestId?: string;
  /** Records made at or after this instant: never before the retention's start. */
  fromIso: string;
  /** Records made before this instant. */
  toIso?: string;
  limit: number;
  maxRead: number;
}

export interface ApiReadPage {
  reads: StoredApiRead[];
  /** The id of the last record read, matching or not, when the read bound stopped the read. */
  lastReadId: string | null;
  exhausted: boolean;
}

const apiReadQuery = z.strictObject({
  key_id: z.optional(ulidString()),
  request_id: z.optional(ulidString()),
  from: z.optional(queryDay()),
  to: z.optional(queryDay()),
  before: z.optional(ulidString()),
  limit: pageLimit(50),
});

/**
 * GET /app/api/audit?view=api_reads (owners and admins): the records API keys' reads left
 * (core/api-reads.ts), newest first, filtered by key, by a request they named and by days (UTC).
 * Records older than the retention are never shown, even before the table's TTL has deleted them.
 */
export const apiReadView = async (
  deps: { clock: Clock; apiReadReader: { read(query: ApiReadQuery): Promise<ApiReadPage> } },
  caller: MemberCaller,
  rawQuery: unknown,
) => {
  requireManager(caller, 'read the audit log');
  const query = parseOrThrow(apiReadQuery, rawQuery ?? {}, UNKNOWN_QUERY_PARAMETER);
  const retentionStart = deps.clock.now().getTime() - API_READ_RETENTION_DAYS * 86_400_000;
  const days = dayRange(query);
  const page = await deps.apiReadReader.read({
    orgId: caller.org.id,
    beforeId: query.before,
    keyId: query.key_id,
    requestId: query.request_id,
    fromIso: new Date(Math.max(retentionStart, query.from?.getTime() ?? 0)).toISOString(),
    toIso: days.toIso,
    limit: query.limit,
    maxRead: API_READ_VIEW_MAX_READ,
  });
  const { shown, next } = newestFirstPage({ matched: page.reads, lastRead: page.lastReadId, exhausted: page.exhausted }, query.limit, (read) => read.id);
  return {
    data: shown.map((read) => ({
      id: read.id,
      occurred_at: read.occurredAt,
      key: { id: read.key.id, name: read.key.name },
      route: read.route,
      status: read.status,
      client_id: read.clientId,
      source_ip: read.sourceIp,
      records: read.records,
    })),
    has_more: next !== null,
    next_before: next,
  };
};
