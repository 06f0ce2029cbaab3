import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '#core/hashing.ts';
import type { TicketIndex, TicketLinkKind, TicketLinks } from '#core/ticket-links.ts';
import type { TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { queryAllPages } from './query-prefix.ts';

/** A ticket value a new record carries, and how it carries it. */
export type TicketNote = [ref: string | null | undefined, kind: TicketLinkKind];

const entryKey = (orgId: string, ref: string) => keys.ticketIndexEntry(orgId, sha256Hex(ref));

/**
 * The index items that note a new record's ticket values, for the record's own creating
 * transaction: one update per distinct value (a transaction may name an item once), setting the
 * flag of each kind. Idempotent, and never removed: a flag outliving its record only sends a
 * status the long way, through the ticket indexes, which find nothing.
 */
export const ticketIndexWrites = (tableName: string, orgId: string, notes: TicketNote[]): TransactItem[] => {
  // A Map: a ticket reference is the sender's text, and may be `constructor` or `__proto__`.
  const kindsByRef = new Map<string, TicketLinkKind[]>();
  for (const [ref, kind] of notes) {
    if (!ref) continue;
    const kinds = kindsByRef.get(ref) ?? [];
    if (!kinds.includes(kind)) kindsByRef.set(ref, [...kinds, kind]);
  }
  return [...kindsByRef].map(([ref, kinds]) => ({
    Update: {
      TableName: tableName,
      Key: entryKey(orgId, ref),
      // By name: `shared` is one of DynamoDB's reserved words.
      UpdateExpression: `SET kind = :kind, orgId = :orgId, ${kinds.map((kind) => `#${kind} = :yes`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(kinds.map((kind) => [`#${kind}`, kind])),
      ExpressionAttributeValues: { ':kind': 'ticket_index', ':orgId': orgId, ':yes': true },
    },
  }));
};

/** The kinds of record the ticket index holds one item for each of, by their sort key's tag. */
const RECORD_TAGS = { request: 'REQ', share: 'SHARE' } as const;
export type TicketRecordType = keyof typeof RECORD_TAGS;

/**
 * The record's own items in the ticket index, for its creating transaction: one per distinct
 * ticket value it carries. The ticket GSIs lag their table deployed, so a status arriving just
 * after the record was made can miss it there; these items, read consistently by key, cannot.
 * Never removed, like the record's entries in the GSIs.
 */
export const ticketRecordWrites = (tableName: string, orgId: string, type: TicketRecordType, recordId: string, refs: Array<string | null | undefined>): TransactItem[] =>
  [...new Set(refs.filter((ref): ref is string => Boolean(ref)))].map((ref) => ({
    Put: {
      TableName: tableName,
      Item: { ...keys.ticketRecord(orgId, sha256Hex(ref), RECORD_TAGS[type], recordId), kind: 'ticket_record', orgId, recordId },
    },
  }));

/**
 * The ids of the organisation's records of `type` that carry `ref`, as the ticket index holds
 * them: every one committed before this read (strongly consistent), none made before the index
 * kept these items (the ticket GSIs still find those), the newest `limit`.
 */
export const ticketRecordIds = async (db: Documents, tableName: string, orgId: string, ref: string, type: TicketRecordType, limit = 500): Promise<string[]> => {
  const refHash = sha256Hex(ref);
  const items = await queryAllPages(
    db,
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.ticketIndexEntry(orgId, refHash).pk, ':prefix': keys.ticketRecordPrefix(refHash, RECORD_TAGS[type]) },
      ProjectionExpression: 'recordId',
      ConsistentRead: true,
      // Newest first (ids are ULIDs): past the limit, the records the GSIs may not list yet are the ones kept.
      ScanIndexForward: false,
    },
    limit,
  );
  return items.map((item) => item.recordId as string);
};

/**
 * The ticket index: per organisation and ticket reference (by its hash), which kinds of record
 * quote or link it, written in each record's creating transaction, so a strongly consistent read
 * sees every record committed before it (the ticket GSIs lag). Its read is a single-item read: a
 * function that batches its reads (store/coalesced-reads.ts) sends it with the others. Whether the
 * index covers an organisation is on the organisation (Organisation.ticketIndexCovered), which
 * the inbound URL reads anyway.
 */
export class DynamoTicketIndex implements TicketIndex {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async linksOf(orgId: string, ref: string): Promise<TicketLinks> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: entryKey(orgId, ref), ConsistentRead: true }));
    const flag = (kind: TicketLinkKind) => Item?.[kind] === true;
    return { quoted: flag('quoted'), linked: flag('linked'), shared: flag('shared') };
  }
}
