import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { HandoffRequest } from '#core/model.ts';
import type { AuditEntryInput, HandoffRepository, RequestQuery, SealedMaterial, TicketReadNotes, TrailEntry, TriggerGuard } from '#core/ports.ts';
import { sweepDueAt } from '#core/subject-flow.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import { isConditionFailure, type Documents } from './dynamo.ts';
import { fromItem, toItem } from './items.ts';
import { integrationUnchanged, policyUnchanged } from './write-conditions.ts';
import { keys } from './keys.ts';
import { queryIds, queryPrefix } from './query-prefix.ts';
import { ticketIndexWrites, ticketRecordIds, ticketRecordWrites } from './ticket-index.ts';
import { INDEXES, TTL_ATTRIBUTE, type IndexDefinition } from './table.ts';

/** DynamoDB TTL removes stored material this long after it should have been purged, as a last safety net. */
const MATERIAL_TTL_MARGIN_SECONDS = 24 * 60 * 60;

/**
 * The most requests one filtered list call reads (about 1.5 KB each, so a few 1 MB pages): the
 * filters of `list` are applied after the read, and this bounds a call's time and read capacity.
 */
export const LIST_READ_BUDGET = 2_000;

/** Requests: one item each under REQ#<id>, projected into the list indexes by org, status, client and ticket. */
export class DynamoRequests implements HandoffRepository, TicketReadNotes {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
    /** The most requests a filtered list reads in one call (LIST_READ_BUDGET; smaller in tests). */
    private readonly maxReadPerList = LIST_READ_BUDGET,
  ) {}

  async get(requestId: string) {
    // Strongly consistent: a read right after a change (create, then GET or revoke) must see it.
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.request(requestId), ConsistentRead: true }));
    return fromItem<HandoffRequest>(Item);
  }

  create(request: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput, guard: TriggerGuard | undefined, policyVersion: number) {
    return this.audit.append(audit, [
      ...(guard ? this.guardWrites(request.id, guard) : []),
      policyUnchanged(this.tableName, request.orgId, policyVersion),
      // Each recipient still an active member holding the key the request commits to: a disable or
      // a new key that commits while the request is judged refuses it (judged again, RequestCreator).
      ...request.recipients.map((recipient) => recipientStands(this.tableName, request.orgId, recipient)),
      { Put: { TableName: this.tableName, Item: this.toRequestItem(request), ConditionExpression: 'attribute_not_exists(pk)' } },
      this.linkTokenWrite(request, linkTokenHash),
      // A request's ticket is set when it is made and never changes: noted in the index here only.
      ...ticketIndexWrites(this.tableName, request.orgId, [[request.ticket?.ref, 'quoted'], [request.ticket?.externalId, 'linked']]),
      ...ticketRecordWrites(this.tableName, request.orgId, 'request', request.id, [request.ticket?.ref, request.ticket?.externalId]),
    ]);
  }

  /** The request a ticket trigger created for (integration, preset, ticket), or null. */
  async triggeredRequestId(guard: Omit<TriggerGuard, 'previousRequestId' | 'previousVersion' | 'integrationVersion'>): Promise<string | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.ticketTrigger(guard.orgId, guard.integrationId, guard.preset, guard.ticketId), ConsistentRead: true }),
    );
    return (Item?.requestId as string | undefined) ?? null;
  }

  /** The guard naming the new request, and the earlier one it replaces still as it was read (ended). */
  private guardWrites(requestId: string, guard: TriggerGuard): TransactItem[] {
    const previousUnchanged: TransactItem[] =
      guard.previousRequestId && guard.previousVersion !== null
        ? [{ ConditionCheck: { TableName: this.tableName, Key: keys.request(guard.previousRequestId), ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': guard.previousVersion } } }]
        : [];
    return [
      // The integration still as the post was read: a change that answered while the post was being handled wins.
      integrationUnchanged(this.tableName, guard.orgId, { id: guard.integrationId, version: guard.integrationVersion }),
      {
        Put: {
          TableName: this.tableName,
          Item: { ...keys.ticketTrigger(guard.orgId, guard.integrationId, guard.preset, guard.ticketId), kind: 'ticket_trigger', requestId },
          ...(guard.previousRequestId
            ? { ConditionExpression: 'requestId = :previous', ExpressionAttributeValues: { ':previous': guard.previousRequestId } }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
      ...previousUnchanged,
    ];
  }

  async update(
    before: HandoffRequest,
    after: HandoffRequest,
    audit: AuditEntryInput,
    purgeMaterial: boolean,
    followUps: AuditEntryInput[] = [],
    policyVersion?: number,
    integration?: { id: string; version: number },
  ) {
    const writes: TransactItem[] = [this.replaceWrite(before, after)];
    if (policyVersion !== undefined) writes.push(policyUnchanged(this.tableName, before.orgId, policyVersion));
    if (integration) writes.push(integrationUnchanged(this.tableName, before.orgId, integration));
    if (purgeMaterial) {
      for (const key of await this.materialKeys(before.id)) writes.push({ Delete: { TableName: this.tableName, Key: key } });
    }
    if (followUps.length === 0) return this.audit.append(audit, writes);
    const [entry] = await this.audit.append([audit, ...followUps], writes);
    return entry;
  }

  async noteTicketRead(request: HandoffRequest, readAt: string) {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.request(request.id),
          // The version stays, so no other change has to start again for a read that changed
          // nothing; a status write carrying an older read loses to it all the same (replaceWrite).
          UpdateExpression: 'SET #ticket.#readAt = :readAt',
          ConditionExpression: '#ticket.#verified = :verified AND #ticket.#status = :status AND (attribute_not_exists(#ticket.#readAt) OR #ticket.#readAt < :readAt)',
          ExpressionAttributeNames: { '#ticket': 'ticket', '#readAt': 'statusReadAt', '#verified': 'statusVerified', '#status': 'status' },
          ExpressionAttributeValues: { ':readAt': readAt, ':verified': true, ':status': request.ticket?.status ?? null },
        }),
      );
    } catch (error) {
      // The ticket's status changed meanwhile, or a later read was noted: the request holds that.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The older link tokens' records stay: their page is told the link was replaced (isCurrentLink). */
  relink(before: HandoffRequest, after: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput) {
    return this.audit.append(audit, [this.replaceWrite(before, after), this.linkTokenWrite(after, linkTokenHash)]);
  }

  private linkTokenWrite(request: HandoffRequest, linkTokenHash: string): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: toItem(keys.linkToken(linkTokenHash), 'link_token', { requestId: request.id, orgId: request.orgId }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  /** Stores the sealed envelope and attachments with the submitted request, its audit entry and any follow-ups. */
  async submit(before: HandoffRequest, after: HandoffRequest, material: SealedMaterial, audit: AuditEntryInput, followUps: AuditEntryInput[] = []) {
    const ttl = { [TTL_ATTRIBUTE]: Math.floor(Date.parse(after.recordExpiresAt!) / 1000) + MATERIAL_TTL_MARGIN_SECONDS };
    const put = (key: { pk: string; sk: string }, kind: string, body: object): TransactItem => ({
      Put: { TableName: this.tableName, Item: { ...key, kind, ...ttl, body }, ConditionExpression: 'attribute_not_exists(pk)' },
    });
    const writes = [
      this.replaceWrite(before, after),
      put(keys.envelope(after.id), 'envelope', material.envelope),
      ...material.attachments.map((attachment, index) => put(keys.attachment(after.id, index), 'attachment', attachment)),
    ];
    const [entry] = await this.audit.append([audit, ...followUps], writes);
    return entry!;
  }

  async material(requestId: string): Promise<SealedMaterial | null> {
    const items = await this.queryUnder(requestId, keys.requestMaterialPrefix);
    const envelope = items.find((item) => item.kind === 'envelope');
    if (!envelope) return null;
    return { envelope: envelope.body as object, attachments: items.filter((item) => item.kind === 'attachment').map((item) => item.body as object) };
  }

  async trail(requestId: string): Promise<TrailEntry[]> {
    return (await this.queryUnder(requestId, keys.trailPrefix)).map((item) => ({
      seq: item.seq as number,
      type: item.type as string,
      occurredAt: item.occurredAt as string,
      actor: item.actor as TrailEntry['actor'],
      details: (item.details as Record<string, unknown>) ?? {},
    }));
  }

  async findByLinkTokenHash(tokenHash: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.linkToken(tokenHash), ConsistentRead: true }));
    return Item ? this.get(Item.requestId as string) : null;
  }

  /**
   * Every request of the organisation whose ticket reference or external ticket id is `ref`
   * (two index queries and the ticket index's items, never a scan), oldest first, each once; at
   * most `limit` of each kind. The GSIs lag: the ticket index's items, read consistently, add the
   * requests made a moment ago, and each hit is read again from the table.
   */
  async findByTicket(orgId: string, ref: string, limit = 500): Promise<HandoffRequest[]> {
    const byIndex = (index: IndexDefinition, partition: string) =>
      queryIds(this.db, this.tableName, index, partition, limit);
    const [quoted, linked, noted] = await Promise.all([
      byIndex(INDEXES.byTicket, keys.requestsOfTicket(orgId, ref)),
      byIndex(INDEXES.byExternalTicket, keys.requestsOfExternalTicket(orgId, ref)),
      ticketRecordIds(this.db, this.tableName, orgId, ref, 'request', limit),
    ]);
    const ids = [...new Set([...quoted, ...linked, ...noted])].sort();
    const requests = await Promise.all(ids.map((id) => this.get(id)));
    return requests.filter((request): request is HandoffRequest => request !== null && request.orgId === orgId);
  }

  /**
   * `after` in place of `before`, if nobody changed it meanwhile. A write that applies a new
   * helpdesk read also needs the read time it replaces to be the one still held: noteTicketRead
   * moves it without a new version, and a read older than the noted one must then lose (a
   * WriteConflict: the caller reads again and drops it), not overwrite it.
   */
  private replaceWrite(before: HandoffRequest, after: HandoffRequest): TransactItem {
    const heldReadAt = before.ticket?.statusReadAt ?? null;
    const newRead = (after.ticket?.statusReadAt ?? null) !== heldReadAt;
    const held = heldReadAt === null ? '(attribute_not_exists(#ticket.#readAt) OR #ticket.#readAt = :noRead)' : '#ticket.#readAt = :heldReadAt';
    return {
      Put: {
        TableName: this.tableName,
        Item: this.toRequestItem({ ...after, version: before.version + 1 }),
        ConditionExpression: newRead ? `version = :version AND ${held}` : 'version = :version',
        ...(newRead ? { ExpressionAttributeNames: { '#ticket': 'ticket', '#readAt': 'statusReadAt' } } : {}),
        ExpressionAttributeValues: { ':version': before.version, ...(newRead ? (heldReadAt === null ? { ':noRead': null } : { ':heldReadAt': heldReadAt }) : {}) },
      },
    };
  }

  private queryUnder(requestId: string, prefix: string) {
    return queryPrefix(this.db, this.tableName, keys.request(requestId).pk, prefix, { consistent: true });
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
    let read = 0;
    let round = 0;
    // Fetch one more than the page to learn whether another page exists.
    while (items.length <= query.limit) {
      const wanted = query.limit + 1 - items.length;
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: index.indexName,
          KeyConditionExpression: `${index.partitionKey} = :partition`,
          FilterExpression: conditions.length ? conditions.join(' AND ') : undefined,
          ExpressionAttributeNames: conditions.length ? names : undefined,
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          // A filter is applied after the read: each round reads four times more than the one
          // before (a filter most requests match costs about a page), within the call's budget.
          Limit: conditions.length ? Math.min(this.maxReadPerList - read, wanted * 4 ** round) : wanted,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) items.push(fromItem<HandoffRequest>(item) as HandoffRequest);
      read += page.ScannedCount ?? 0;
      round += 1;
      start = page.LastEvaluatedKey;
      if (!start) break;
      if (read >= this.maxReadPerList && items.length <= query.limit) {
        // A filter few requests match (a client's revoked ones, over years of history) would
        // otherwise read the whole partition in one call, past the function's time limit: the
        // page ends where the read stopped, shorter or even empty, and the next goes on from there.
        return { items, nextCursor: start[index.sortKey] as string };
      }
    }
    const hasMore = items.length > query.limit;
    const pageItems = items.slice(0, query.limit);
    return { items: pageItems, nextCursor: hasMore ? pageItems[pageItems.length - 1].id : null };
  }

  /** Keys of the stored envelope and attachments of a request. */
  private async materialKeys(requestId: string) {
    return (await this.queryUnder(requestId, keys.requestMaterialPrefix)).map((item) => ({ pk: item.pk as string, sk: item.sk as string }));
  }

  private toRequestItem(request: HandoffRequest) {
    const { orgId, id } = request;
    const due = sweepDueAt(request);
    return toItem(keys.request(id), 'request', request, {
      gsi1pk: keys.requestsOfOrg(orgId),
      gsi1sk: id,
      gsi2pk: keys.requestsInStatus(orgId, request.status),
      gsi2sk: id,
      gsi3pk: keys.requestsOfClient(orgId, request.client.id),
      gsi3sk: id,
      ...(request.ticket?.ref ? { gsi4pk: keys.requestsOfTicket(orgId, request.ticket.ref), gsi4sk: id } : {}),
      ...(request.ticket?.externalId ? { gsi7pk: keys.requestsOfExternalTicket(orgId, request.ticket.externalId), gsi7sk: id } : {}),
      ...(due ? { gsi5pk: keys.dueShard(id), gsi5sk: `${due}#${id}` } : {}),
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

/** The recipient is still an active member with the key the request was committed to (at most 64 recipients, MAX_RECIPIENTS). */
const recipientStands = (tableName: string, orgId: string, recipient: { membershipId: string; fingerprint: string }): TransactItem => ({
  ConditionCheck: {
    TableName: tableName,
    Key: keys.member(orgId, recipient.membershipId),
    ConditionExpression: '#active = :active AND #identityKey.#fingerprint = :fingerprint',
    ExpressionAttributeNames: { '#active': 'active', '#identityKey': 'identityKey', '#fingerprint': 'fingerprint' },
    ExpressionAttributeValues: { ':active': true, ':fingerprint': recipient.fingerprint },
  },
});
