import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '#core/hashing.ts';
import type { TicketIndex, TicketLinkKind, TicketLinks } from '#core/ticket-links.ts';
import type { TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';

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
  const kindsByRef: Record<string, TicketLinkKind[]> = {};
  for (const [ref, kind] of notes) if (ref && !(kindsByRef[ref] ??= []).includes(kind)) kindsByRef[ref].push(kind);
  return Object.entries(kindsByRef).map(([ref, kinds]) => ({
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
