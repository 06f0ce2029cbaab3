import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { HandoffRequest } from '#core/model.ts';
import type { AuditEntryInput, RequestQuery, RequestRepository } from '#core/ports.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { fromItem, toItem } from './items.ts';
import { keys } from './keys.ts';
import { INDEXES, type IndexDefinition } from './table.ts';

/** Requests: one item each under REQ#<id>, projected into the list indexes by org, status, client and ticket. */
export class DynamoRequests implements RequestRepository {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async get(requestId: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.request(requestId) }));
    return fromItem<HandoffRequest>(Item);
  }

  create(request: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput) {
    return this.audit.append(audit, [
      { Put: { TableName: this.tableName, Item: this.toRequestItem(request), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.linkToken(linkTokenHash), 'link_token', { requestId: request.id, orgId: request.orgId }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  }

  async update(before: HandoffRequest, after: HandoffRequest, audit: AuditEntryInput, purgeMaterial: boolean) {
    const writes: TransactItem[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: this.toRequestItem({ ...after, version: before.version + 1 }),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
    ];
    if (purgeMaterial) {
      for (const key of await this.materialKeys(before.id)) writes.push({ Delete: { TableName: this.tableName, Key: key } });
    }
    return this.audit.append(audit, writes);
  }

  async list(query: RequestQuery) {
    const { index, partition, filters } = chooseIndex(query);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':partition': partition };
    const conditions: string[] = [];
    filters.forEach(([path, value], position) => {
      const segments = path.split('.').map((segment, depth) => {
        names[`#f${position}_${depth}`] = segment;
        return `#f${position}_${depth}`;
      });
      values[`:f${position}`] = value;
      conditions.push(`${segments.join('.')} = :f${position}`);
    });

    const items: HandoffRequest[] = [];
    let start: Record<string, unknown> | undefined = query.cursor
      ? { ...keys.request(query.cursor), [index.partitionKey]: partition, [index.sortKey]: query.cursor }
      : undefined;
    // Fetch one more than the page to learn whether another page exists.
    while (items.length <= query.limit) {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: index.indexName,
          KeyConditionExpression: `${index.partitionKey} = :partition`,
          FilterExpression: conditions.length ? conditions.join(' AND ') : undefined,
          ExpressionAttributeNames: conditions.length ? names : undefined,
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          Limit: query.limit + 1 - items.length,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) items.push(fromItem<HandoffRequest>(item) as HandoffRequest);
      start = page.LastEvaluatedKey;
      if (!start) break;
    }
    const hasMore = items.length > query.limit;
    const pageItems = items.slice(0, query.limit);
    return { items: pageItems, nextCursor: hasMore ? pageItems[pageItems.length - 1].id : null };
  }

  /** Keys of the stored envelope and attachments of a request. */
  private async materialKeys(requestId: string) {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.request(requestId).pk, ':prefix': keys.requestMaterialPrefix },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
  }

  private toRequestItem(request: HandoffRequest) {
    const { orgId, id } = request;
    return toItem(keys.request(id), 'request', request, {
      gsi1pk: keys.requestsOfOrg(orgId),
      gsi1sk: id,
      gsi2pk: keys.requestsInStatus(orgId, request.status),
      gsi2sk: id,
      gsi3pk: keys.requestsOfClient(orgId, request.client.id),
      gsi3sk: id,
      ...(request.ticket?.ref ? { gsi4pk: keys.requestsOfTicket(orgId, request.ticket.ref), gsi4sk: id } : {}),
    });
  }
}

/** The narrowest index for the filters given; the other filters are applied on the way out. */
const chooseIndex = (query: RequestQuery): { index: IndexDefinition; partition: string; filters: Array<[string, string]> } => {
  const filters: Array<[string, string]> = [];
  if (query.ticketRef !== undefined) {
    if (query.clientId) filters.push(['client.id', query.clientId]);
    if (query.status) filters.push(['status', query.status]);
    return { index: INDEXES.byTicket, partition: keys.requestsOfTicket(query.orgId, query.ticketRef), filters };
  }
  if (query.clientId) {
    if (query.status) filters.push(['status', query.status]);
    return { index: INDEXES.byClient, partition: keys.requestsOfClient(query.orgId, query.clientId), filters };
  }
  if (query.status) return { index: INDEXES.byStatus, partition: keys.requestsInStatus(query.orgId, query.status), filters };
  return { index: INDEXES.byOrg, partition: keys.requestsOfOrg(query.orgId), filters };
};
