import * as z from 'zod/mini';
import { UNKNOWN_QUERY_PARAMETER } from '../query-words.ts';
import { hashMatchesContent } from '../audit-hash.ts';
import { requireManager, type MemberCaller } from '../member-access.ts';
import type { AuditEntry } from '../ports.ts';
import { parseOrThrow, queryDay, ulidString } from '../validation.ts';
import { dayRange, newestFirstPage, pageLimit } from './newest-first-page.ts';

/** Stored entries one call reads at most, matching or not, so a narrow filter still answers quickly. */
export const AUDIT_LOG_MAX_READ = 1000;

export interface AuditLogQuery {
  orgId: string;
  /** Entries with a smaller sequence number only (newest first from there). */
  beforeSeq: number;
  type?: string;
  requestId?: string;
  memberId?: string;
  fromIso?: string;
  toIso?: string;
  limit: number;
  maxRead: number;
}

export interface AuditLogPage {
  entries: AuditEntry[];
  lastReadSeq: number | null;
  exhausted: boolean;
}

const auditLogQuery = z.strictObject({
  type: z.optional(z.string().check(z.regex(/^[a-z_]+(\.[a-z_]+)+$/, 'Must be an audit type such as request.created.'), z.maxLength(64))),
  request_id: z.optional(ulidString()),
  member_id: z.optional(ulidString()),
  from: z.optional(queryDay()),
  to: z.optional(queryDay()),
  before: z.optional(z.string().check(z.regex(/^[0-9]{1,15}$/, 'Must be a string of 1 to 15 digits (a previous next_before).'))),
  limit: pageLimit(50),
});

/**
 * The member an entry is about (added, disabled, their role or key changed), as the entry recorded
 * them. On an entry about a request, `data.member` is the member who acted, whom `actor` names.
 */
const memberOfEntry = (entry: AuditEntry) => {
  if (entry.requestId) return null;
  const member = (entry.data as { member?: { membership_id?: unknown; name?: unknown; email?: unknown } } | null)?.member;
  if (!member || typeof member.membership_id !== 'string') return null;
  return { membership_id: member.membership_id, name: typeof member.name === 'string' ? member.name : null, email: typeof member.email === 'string' ? member.email : null };
};

/**
 * GET /app/api/audit (owners and admins): the organisation's audit chain, newest first, with each
 * entry's hash link, filtered by type, request, acting member and days (UTC). One call reads at
 * most AUDIT_LOG_MAX_READ stored entries; `next_before` goes on from where it stopped.
 */
export const auditLogView = async (deps: { auditReader: { read(query: AuditLogQuery): Promise<AuditLogPage> } }, caller: MemberCaller, rawQuery: unknown) => {
  requireManager(caller, 'read the audit log');
  const query = parseOrThrow(auditLogQuery, rawQuery ?? {}, UNKNOWN_QUERY_PARAMETER);
  const page = await deps.auditReader.read({
    orgId: caller.org.id,
    beforeSeq: query.before === undefined ? Number.MAX_SAFE_INTEGER : Number(query.before),
    type: query.type,
    requestId: query.request_id,
    memberId: query.member_id,
    ...dayRange(query),
    limit: query.limit,
    maxRead: AUDIT_LOG_MAX_READ,
  });
  const { shown: entries, next: nextBefore } = newestFirstPage(
    { matched: page.entries, lastRead: page.lastReadSeq, exhausted: page.exhausted },
    query.limit,
    (entry) => entry.seq,
  );
  return {
    data: entries.map((entry) => ({
      seq: entry.seq,
      type: entry.type,
      occurred_at: entry.occurredAt,
      actor: { type: entry.actor.type, label: entry.actor.label, id: entry.actor.id ?? null },
      request_id: entry.requestId ?? null,
      share_id: entry.shareId ?? null,
      member: memberOfEntry(entry),
      details: (entry.data as { details?: unknown } | null)?.details ?? {},
      prev_hash: entry.prevHash,
      hash: entry.hash,
      hash_matches: hashMatchesContent(entry),
    })),
    has_more: nextBefore !== null,
    next_before: nextBefore === null ? null : String(nextBefore),
  };
};
