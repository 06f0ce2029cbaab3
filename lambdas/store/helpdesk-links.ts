import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { boundedQuery } from './bounded-query.ts';
import { decodeTime, ulid } from 'ulid';
import type { RequestStatus } from '#core/model.ts';
import type { HelpdeskLinks } from '#core/use-cases/tickets/reconcile-tickets.ts';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { queryPrefix } from './query-prefix.ts';
import { INDEXES } from './table.ts';

/**
 * What the reconciliation reads (and nothing else does): the integrations connected to their
 * helpdesk, from the partition their connection writes (`HELPDESK_INTEGRATIONS`), and the tickets
 * live requests are linked to through one of them. A store of its own, so no other function bundles it.
 */
export class DynamoHelpdeskLinks implements HelpdeskLinks {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async connectedIntegrations(): Promise<Array<{ orgId: string; integrationId: string }>> {
    const partition = keys.helpdeskIntegration('', '').pk;
    const items = await queryPrefix(this.db, this.tableName, partition, keys.helpdeskIntegrationPrefix, { consistent: true });
    return items.map((item) => ({ orgId: item.orgId as string, integrationId: item.integrationId as string }));
  }

  /**
   * The external ids of the tickets that requests in `statuses` are linked to through one
   * integration (the byStatus index, filtered by the link), each once, at most `limit` requests read
   * per status. With more than that, each run reads from a point picked at random among the
   * requests' ids onward, then from the oldest up to it: successive runs cover every linked ticket,
   * not only the oldest requests' (`startAt` picks the point; tests fix it).
   */
  async linkedTickets(orgId: string, integrationId: string, statuses: readonly RequestStatus[], limit = 1_000, startAt = randomIdBetween): Promise<string[]> {
    const tickets = new Set<string>();
    for (const status of statuses) {
      const partition = keys.requestsInStatus(orgId, status);
      const edges = await this.edgeIds(partition);
      if (!edges) continue;
      const start = startAt(edges[0], edges[1]);
      let read = 0;
      for (const condition of ['>= :start', '< :start']) {
        // What is left of the bound, as both the matches asked for and the items read: every match is kept.
        const left = limit - read;
        const page = await boundedQuery(
          this.db,
          {
            TableName: this.tableName,
            IndexName: INDEXES.byStatus.indexName,
            KeyConditionExpression: `${INDEXES.byStatus.partitionKey} = :partition AND ${INDEXES.byStatus.sortKey} ${condition}`,
            FilterExpression: '#ticket.#integration = :integration AND attribute_type(#ticket.#external, :string)',
            ExpressionAttributeNames: { '#ticket': 'ticket', '#integration': 'integrationId', '#external': 'externalId' },
            ExpressionAttributeValues: { ':partition': partition, ':start': start, ':integration': integrationId, ':string': 'S' },
            ProjectionExpression: '#ticket.#external',
          },
          left,
          left,
        );
        read += page.read;
        for (const item of page.items) tickets.add((item.ticket as { externalId: string }).externalId);
        if (read >= limit) break;
      }
    }
    return [...tickets];
  }

  /** The oldest and the newest request id in a status partition of the byStatus index; null when it is empty. */
  private async edgeIds(partition: string): Promise<[string, string] | null> {
    const edge = async (forward: boolean) => {
      const { Items } = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: INDEXES.byStatus.indexName,
          KeyConditionExpression: `${INDEXES.byStatus.partitionKey} = :partition`,
          ExpressionAttributeValues: { ':partition': partition },
          ProjectionExpression: INDEXES.byStatus.sortKey,
          ScanIndexForward: forward,
          Limit: 1,
        }),
      );
      return Items?.[0]?.[INDEXES.byStatus.sortKey] as string | undefined;
    };
    const [oldest, newest] = await Promise.all([edge(true), edge(false)]);
    return oldest && newest ? [oldest, newest] : null;
  }
}

/** An id (a ULID) made at a moment picked at random between those of two ids. */
const randomIdBetween = (oldest: string, newest: string) => {
  const from = decodeTime(oldest.toUpperCase());
  const to = decodeTime(newest.toUpperCase());
  return ulid(from + Math.floor(Math.random() * (to - from + 1))).toLowerCase();
};
