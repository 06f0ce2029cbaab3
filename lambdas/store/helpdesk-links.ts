import { QueryCommand } from '@aws-sdk/lib-dynamodb';
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
   * integration (the byStatus index, filtered by the link), each once, at most `limit` requests read.
   */
  async linkedTickets(orgId: string, integrationId: string, statuses: readonly RequestStatus[], limit = 1_000): Promise<string[]> {
    const tickets = new Set<string>();
    for (const status of statuses) {
      let start: Record<string, unknown> | undefined;
      let read = 0;
      do {
        const page = await this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: INDEXES.byStatus.indexName,
            KeyConditionExpression: `${INDEXES.byStatus.partitionKey} = :partition`,
            FilterExpression: '#ticket.#integration = :integration AND attribute_type(#ticket.#external, :string)',
            ExpressionAttributeNames: { '#ticket': 'ticket', '#integration': 'integrationId', '#external': 'externalId' },
            ExpressionAttributeValues: { ':partition': keys.requestsInStatus(orgId, status), ':integration': integrationId, ':string': 'S' },
            ProjectionExpression: '#ticket.#external',
            Limit: limit - read,
            ExclusiveStartKey: start,
          }),
        );
        read += page.ScannedCount ?? 0;
        for (const item of page.Items ?? []) tickets.add((item.ticket as { externalId: string }).externalId);
        start = page.LastEvaluatedKey;
      } while (start && read < limit);
    }
    return [...tickets];
  }
}
