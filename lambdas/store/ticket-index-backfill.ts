import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { queryAllPages } from './query-prefix.ts';
import { INDEXES } from './table.ts';
import { ticketIndexWrites, type TicketNote } from './ticket-index.ts';

export interface TicketIndexBackfill {
  organisation_id: string;
  requests_read: number;
  shares_read: number;
  /** Ticket references noted (each once, with every kind of record that quotes or links it). */
  tickets_noted: number;
}

/** The named attributes of every item under one partition of the by-organisation index. */
const everyItemOf = (db: Documents, tableName: string, partition: string, attributes: string[]) =>
  queryAllPages(db, {
    TableName: tableName,
    IndexName: INDEXES.byOrg.indexName,
    KeyConditionExpression: `${INDEXES.byOrg.partitionKey} = :partition`,
    ExpressionAttributeValues: { ':partition': partition },
    ProjectionExpression: attributes.map((_, index) => `#a${index}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
  });

/**
 * The operator's backfill of one organisation's ticket index (`npm run admin -- index-tickets`):
 * every request and share it holds noted by the tickets it quotes or is linked to, then the
 * organisation marked covered, so that a status for a ticket none of them quotes is answered
 * without looking through the ticket indexes. For organisations made before the index was kept
 * (those made since are covered from their creation). Run it once the functions that note new
 * records are deployed, so that none made meanwhile goes unnoted; it is safe to run again, as
 * every write sets flags already set.
 */
export const backfillTicketIndex = async (db: Documents, tableName: string, orgId: string): Promise<TicketIndexBackfill> => {
  const [requests, shares] = await Promise.all([
    everyItemOf(db, tableName, keys.requestsOfOrg(orgId), ['ticket']),
    everyItemOf(db, tableName, keys.sharesOfOrg(orgId), ['ticketRef']),
  ]);
  const notes: TicketNote[] = [
    ...requests.flatMap((item): TicketNote[] => {
      const ticket = item.ticket as { ref?: string | null; externalId?: string | null } | null | undefined;
      return [
        [ticket?.ref, 'quoted'],
        [ticket?.externalId, 'linked'],
      ];
    }),
    ...shares.map((item): TicketNote => [item.ticketRef as string | null | undefined, 'shared']),
  ];
  const writes = ticketIndexWrites(tableName, orgId, notes);
  for (const write of writes) await db.send(new UpdateCommand(write.Update as UpdateCommandInput));
  // Only once every record is noted: from here on a ticket nothing noted is a ticket nothing quotes.
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.organisation(orgId),
      UpdateExpression: 'SET ticketIndexCovered = :yes',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':yes': true },
    }),
  );
  return { organisation_id: orgId, requests_read: requests.length, shares_read: shares.length, tickets_noted: writes.length };
};
