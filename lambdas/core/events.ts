import type { AuditEntry } from './ports.ts';

/**
 * The event types of SPEC.md's Events section. Events are the audit entries of these types; the
 * other audit types (subject.verified, api_key.created, webhook.created, ...) are never events.
 */
export const EVENT_TYPES = [
  'request.created',
  'request.opened',
  'request.submitted',
  'request.revealed',
  'request.completed',
  'credential.rotation_recommended',
  'request.expired',
  'request.revoked',
  'request.reported',
  'member.disabled',
  'org_recovery.used',
  // Extensions of SPEC.md's list (docs/decisions.md): a request given a new link, and a stored credential no recipient can open any more.
  'request.relinked',
  'request.unrecoverable',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Everything but `ping`, which only the app's test action sends. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter(
  (type): type is Exclude<EventType, 'ping'> => type !== 'ping',
);
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** Events about the organisation itself: they carry no client (`client_id` null), so no client-scoped subscription or feed sees them. */
export const ORGANISATION_EVENT_TYPES: readonly SubscribableEventType[] = ['member.disabled', 'org_recovery.used'];

const EVENT_TYPE_SET = new Set<string>(EVENT_TYPES);
const SUBSCRIBABLE_SET = new Set<string>(SUBSCRIBABLE_EVENT_TYPES);

export const isEventType = (type: string): type is EventType => EVENT_TYPE_SET.has(type);
export const isSubscribableEventType = (type: string): type is SubscribableEventType => SUBSCRIBABLE_SET.has(type);

/** The `id` of the event made from the entry with this sequence number. */
export const eventId = (seq: number) => `evt_${seq}`;

const EVENT_ID = /^evt_([1-9][0-9]{0,14})$/;
/** The sequence number an event id (`evt_<seq>`, as GET /events shows it) names; null when the text is not one. */
export const seqOfEventId = (text: string): number | null => {
  const seq = Number(EVENT_ID.exec(text)?.[1]);
  return Number.isSafeInteger(seq) ? seq : null;
};

export interface EventObject {
  id: string;
  object: 'event';
  type: string;
  occurred_at: string;
  organisation_id: string;
  client_id: string | null;
  seq: number;
  data: {
    request?: unknown;
    member?: unknown;
    justification?: string;
    details: Record<string, unknown>;
    actor: { type: string; label: string | null };
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy with every object's keys in sorted order. DynamoDB does not keep the key order of a
 * stored map, so the nested members (request, member, details) are put in an order of their own.
 */
const sortedDeep = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (!isObject(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) if (value[key] !== undefined) sorted[key] = sortedDeep(value[key]);
  return sorted;
};

/**
 * SPEC.md's Event object, made from the stored entry alone, with a fixed key order: the same
 * entry always gives byte-identical JSON, so GET /events and a webhook delivery of one event agree
 * byte for byte (`JSON.stringify(toEventObject(entry))`), whatever order storage hands the
 * nested maps back in. Only the members SPEC.md lists are
 * copied out of the entry's data (never the actor's key or member id, never anything else the
 * entry may carry); the entry's data is written without secrets by every writer.
 */
export const toEventObject = (entry: AuditEntry): EventObject => {
  const stored = isObject(entry.data) ? entry.data : {};
  const data: EventObject['data'] = {} as EventObject['data'];
  if (stored.request !== undefined) data.request = sortedDeep(stored.request);
  if (stored.member !== undefined) data.member = sortedDeep(stored.member);
  if (typeof stored.justification === 'string') data.justification = stored.justification;
  data.details = isObject(stored.details) ? (sortedDeep(stored.details) as Record<string, unknown>) : {};
  const actor = isObject(stored.actor) ? stored.actor : entry.actor;
  data.actor = { type: String(actor.type ?? entry.actor.type), label: (actor.label as string | null | undefined) ?? null };
  return {
    id: eventId(entry.seq),
    object: 'event',
    type: entry.type,
    occurred_at: entry.occurredAt,
    organisation_id: entry.orgId,
    client_id: entry.clientId ?? null,
    seq: entry.seq,
    data,
  };
};

/** How the feed asks storage for events: entries after a sequence number, oldest first. */
export interface EventFeedQuery {
  orgId: string;
  /** Entries with a greater sequence number. */
  afterSeq: number;
  /** Only these audit types (already narrowed to event types). */
  types: readonly string[];
  /** Only entries of this client (a client-scoped key). */
  clientId?: string;
  /** Stop after this many matching entries. */
  limit: number;
  /** Read at most this many stored entries, matching or not, so one call's work stays bounded. */
  maxRead: number;
}

export interface EventFeedPage {
  /** Matching entries in sequence order, at most `limit + 1` (one more than asked tells that more exist). */
  entries: AuditEntry[];
  /** Where reading stopped before the end: the last stored entry read, matching or not; else null. */
  lastReadSeq: number | null;
  /** True when the partition was read to its end. */
  exhausted: boolean;
}

export interface EventFeed {
  read(query: EventFeedQuery): Promise<EventFeedPage>;
  /** The sequence number of the organisation's newest audit entry (0 when it has none). */
  newestSeq(orgId: string): Promise<number>;
}
