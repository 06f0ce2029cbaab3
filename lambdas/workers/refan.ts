import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Clock } from '#core/clock.ts';
import { eventId, isSubscribableEventType, seqOfEventId } from '#core/events.ts';
import type { AuditEntry } from '#core/ports.ts';
import type { AuditLog } from '#store/audit-log.ts';
import { DeliveryStore } from '#store/deliveries.ts';
import type { Documents } from '#store/dynamo.ts';
import { auditSortKey, keys } from '#store/keys.ts';
import { DynamoDirectory } from '#store/directory.ts';
import { DynamoWebhooks } from '#store/webhooks.ts';
import { createHandler as createFanOut, type FanOutDeps } from './fan-out.ts';
import { sweepDrivenQueue } from './delivery-sweep.ts';
import { auditInsertRecord } from './stream-record.ts';

/**
 * The operator's re-fan-out (`npm run admin -- refan-events`): an organisation's audit entries
 * from one sequence number to another, read again from the chain and handed, as the stream
 * records they were, to the same fan-out handler the stream feeds. For the records the fan-out
 * gave up on (deployed, after its retries the event source mapping sends only their metadata to
 * the fan-out's dead-letter queue, and nothing else would ever create their deliveries).
 *
 * Only what is missing is created: a delivery's id is derived from (webhook, event), so one that
 * exists already (made by the stream, or by an earlier run) fails the conditional put and is left
 * as it is. Which entries go to which subscriptions is the handler's own rule: events of a
 * subscribed type, of the subscription's client, not before the subscription was created; other
 * audit entries and `ping` go nowhere.
 */

/** Entries one run reads at most; a longer range is cut there and the answer says where to go on. */
export const REFAN_MAX_ENTRIES = 10_000;
/** Stream records handed to the handler at once (the event source mapping's batch, roughly). */
export const REFAN_BATCH = 25;
/** Entries asked for per query page. */
const PAGE = 250;

/** The range cannot be re-fanned as asked (malformed id, empty range, unknown organisation): nothing was written. */
export class RefanRefused extends Error {
  override readonly name = 'RefanRefused';
}

export interface RefanDeps extends Pick<FanOutDeps, 'clock' | 'logger' | 'deliveries' | 'webhooks' | 'organisations'> {
  db: Documents;
  tableName: string;
  /** Smaller sizes for tests; default REFAN_MAX_ENTRIES, REFAN_BATCH and PAGE. */
  limits?: { maxEntries?: number; batch?: number; page?: number };
}

/** The stores the fan-out uses, on the table of `context` (the admin CLI's, or a test's). */
export const refanDeps = (
  context: { db: Documents; tableName: string; audit: AuditLog; clock: Clock },
  logger: FanOutDeps['logger'],
): RefanDeps => ({
  db: context.db,
  tableName: context.tableName,
  clock: context.clock,
  logger,
  deliveries: new DeliveryStore(context.db, context.tableName, context.audit),
  webhooks: new DynamoWebhooks(context.db, context.tableName, context.audit),
  organisations: new DynamoDirectory(context.db, context.tableName),
});

export interface RefanRange {
  orgId: string;
  /** The first event id of the range (`evt_N`). */
  from: string;
  /** The last one (`evt_M`), inclusive; default the chain's head when the run starts. */
  to?: string;
}

export interface RefanResult {
  organisation_id: string;
  from: string;
  /** The last entry of the range this run covered (below the one asked for when capped). */
  to: string;
  entries_read: number;
  /** Entries of subscribable event types among them. */
  events: number;
  /** Deliveries that were missing and are now created (pending, due now). */
  deliveries_created: number;
  /** Stream records the handler reported as failed (their missing deliveries may not all exist yet). */
  failed_records: number;
  /** Where to go on when the range was capped at REFAN_MAX_ENTRIES; null otherwise. */
  next_from: string | null;
  note: string;
}

const parseEventId = (flag: string, text: string) => {
  const seq = seqOfEventId(text);
  if (seq === null) throw new RefanRefused(`--${flag} ${text} is not an event id (evt_<number>, as GET /events shows it)`);
  return seq;
};

export const refanEvents = async (deps: RefanDeps, range: RefanRange): Promise<RefanResult> => {
  const { orgId } = range;
  const from = parseEventId('from', range.from);
  const askedTo = range.to === undefined ? null : parseEventId('to', range.to);
  if (askedTo !== null && askedTo < from) throw new RefanRefused(`--to ${range.to} is before --from ${range.from}`);

  const [organisation, head] = await Promise.all([
    deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.organisation(orgId), ConsistentRead: true })),
    deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.auditHead(orgId), ConsistentRead: true })),
  ]);
  if (!organisation.Item) throw new RefanRefused(`no organisation ${orgId}`);
  const last = typeof head.Item?.n === 'number' ? head.Item.n : 0;
  const beyond = (flag: string, text: string) =>
    new RefanRefused(`organisation ${orgId} has no ${text} (--${flag}): its audit chain ends at ${last === 0 ? 'no entry yet' : eventId(last)}`);
  if (from > last) throw beyond('from', range.from);
  if (askedTo !== null && askedTo > last) throw beyond('to', range.to!);
  const maxEntries = deps.limits?.maxEntries ?? REFAN_MAX_ENTRIES;
  const batchSize = deps.limits?.batch ?? REFAN_BATCH;
  const wanted = askedTo ?? last;
  const to = Math.min(wanted, from + maxEntries - 1);

  let created = 0;
  /** The batch's entries by sort key, as read: the fan-out reads each record's entry from here. */
  const readEntries = new Map<string, Record<string, unknown>>();
  const fanOut = createFanOut({
    clock: deps.clock,
    logger: deps.logger,
    webhooks: deps.webhooks,
    organisations: deps.organisations,
    deliveries: {
      // A delivery there already (idempotent id) is not answered as created, and is left as it is.
      createAll: async (deliveries) => {
        const outcome = await deps.deliveries.createAll(deliveries);
        created += outcome.created.length;
        return outcome;
      },
    },
    // A created delivery is pending and due now: the delivery sweep sends it.
    queue: sweepDrivenQueue,
    // The entries each record names were just read, consistently, from the chain itself.
    auditItems: { get: async (key) => (key.pk === keys.auditHead(orgId).pk ? (readEntries.get(key.sk) ?? null) : null) },
  });

  let entriesRead = 0;
  let events = 0;
  const failedSeqs: number[] = [];
  let batch: DynamoDBRecord[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const records = batch;
    batch = [];
    const { batchItemFailures } = await fanOut({ Records: records });
    readEntries.clear();
    // Each record's sequence number is its entry's (stream-record.ts).
    for (const failure of batchItemFailures) failedSeqs.push(Number(failure.itemIdentifier));
  };

  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.auditHead(orgId).pk, ':from': auditSortKey(from), ':to': auditSortKey(to) },
        ConsistentRead: true,
        ScanIndexForward: true,
        Limit: deps.limits?.page ?? PAGE,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const entry = item as unknown as AuditEntry;
      readEntries.set(item.sk as string, item);
      entriesRead++;
      if (typeof entry.type === 'string' && isSubscribableEventType(entry.type)) events++;
      batch.push(auditInsertRecord(entry, `refan-${eventId(entry.seq)}`));
      if (batch.length >= batchSize) await flush();
    }
    start = page.LastEvaluatedKey;
  } while (start);
  await flush();

  const nextFrom = to < wanted ? eventId(to + 1) : null;
  const notes = [
    'Only the missing deliveries were created; existing ones were left as they are.',
    'The delivery sweep sends the created deliveries within its period (every 5 minutes deployed, every minute while npm start runs).',
  ];
  if (nextFrom) notes.push(`The range was capped at ${maxEntries.toLocaleString('en')} entries: run again with --from ${nextFrom} to go on.`);
  if (failedSeqs.length > 0) {
    const ids = failedSeqs.sort((a, b) => a - b).map(eventId);
    notes.push(`${ids.length} record(s) failed (${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', ...' : ''}): run again over them; only what is still missing is created.`);
  }
  return {
    organisation_id: orgId,
    from: eventId(from),
    to: eventId(to),
    entries_read: entriesRead,
    events,
    deliveries_created: created,
    failed_records: failedSeqs.length,
    next_from: nextFrom,
    note: notes.join(' '),
  };
};
