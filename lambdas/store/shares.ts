import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntryInput, DuePaging } from '#core/ports.ts';
import type { Share } from '#core/share.ts';
import type { ShareRepository, ShareWriteConditions } from '#core/use-cases/shares/share-ports.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { readDue } from './due-index.ts';
import { fromItem, toItem } from './items.ts';
import { integrationUnchanged, policyUnchanged } from './write-conditions.ts';
import { keys } from './keys.ts';
import { queryIds } from './query-prefix.ts';
import { INDEXES, TTL_ATTRIBUTE } from './table.ts';
import { ticketIndexWrites, ticketRecordIds, ticketRecordWrites } from './ticket-index.ts';

/** DynamoDB TTL removes a share's ciphertext this long after its expiry, as a last safety net. */
const MATERIAL_TTL_MARGIN_SECONDS = 24 * 60 * 60;
const DUE_SHARDS = 4;
const dueShardKey = (shard: number) => `SHAREDUE#${shard}`;
const dueShard = (shareId: string) => dueShardKey(shareId.charCodeAt(shareId.length - 1) % DUE_SHARDS);
const DUE_SHARD_KEYS = Array.from({ length: DUE_SHARDS }, (_, shard) => dueShardKey(shard));

/**
 * Shares: one item under SHARE#<id> with its ciphertext beside it, its link token's hash under
 * SHARELINK#, listed per organisation (byOrg), per quoted ticket (byTicket, a partition of its own
 * so request look-ups never meet a share), and while live by expiry or purge time (byDue) for
 * the sweep.
 */
export class DynamoShares implements ShareRepository {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async get(shareId: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.share(shareId), ConsistentRead: true }));
    return fromItem<Share>(Item);
  }

  async findByLinkTokenHash(tokenHash: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.shareLinkToken(tokenHash), ConsistentRead: true }));
    return Item ? this.get(Item.shareId as string) : null;
  }

  async envelope(shareId: string): Promise<object | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.shareEnvelope(shareId), ConsistentRead: true }));
    return (Item?.body as object | undefined) ?? null;
  }

  async create(share: Share, linkTokenHash: string, envelope: object, audit: AuditEntryInput) {
    const ttl = { [TTL_ATTRIBUTE]: Math.floor(Date.parse(share.expiresAt) / 1000) + MATERIAL_TTL_MARGIN_SECONDS };
    return this.audit.append(audit, [
      { Put: { TableName: this.tableName, Item: this.toShareItem(share), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: this.tableName, Item: { ...keys.shareEnvelope(share.id), kind: 'share_envelope', ...ttl, body: envelope }, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.shareLinkToken(linkTokenHash), 'share_link', { shareId: share.id, orgId: share.orgId, ...ttl }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...ticketIndexWrites(this.tableName, share.orgId, [[share.ticketRef, 'shared']]),
      ...ticketRecordWrites(this.tableName, share.orgId, 'share', share.id, [share.ticketRef]),
    ]);
  }

  /** Replaces `before` with `after` unless changed meanwhile (WriteConflict), deleting the ciphertext when asked, with the entries, in one transaction. */
  async update(before: Share, after: Share, entries: AuditEntryInput[], purgeMaterial: boolean, conditions: ShareWriteConditions = {}) {
    const writes: TransactItem[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: this.toShareItem({ ...after, version: before.version + 1 }),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
      ...(purgeMaterial ? [{ Delete: { TableName: this.tableName, Key: keys.shareEnvelope(before.id) } }] : []),
      ...(conditions.integration ? [integrationUnchanged(this.tableName, before.orgId, conditions.integration)] : []),
      ...(conditions.policyVersion === undefined ? [] : [policyUnchanged(this.tableName, before.orgId, conditions.policyVersion)]),
    ];
    const [entry] = await this.audit.append(entries, writes);
    return entry;
  }

  /** The organisation's shares, newest first. */
  async list(orgId: string, limit: number, cursor?: string) {
    const { Items, LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: INDEXES.byOrg.indexName,
        KeyConditionExpression: 'gsi1pk = :partition',
        ExpressionAttributeValues: { ':partition': keys.sharesOfOrg(orgId) },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: cursor ? { ...keys.share(cursor), gsi1pk: keys.sharesOfOrg(orgId), gsi1sk: cursor } : undefined,
      }),
    );
    const items = (Items ?? []).map((item) => fromItem<Share>(item) as Share);
    return { items, nextCursor: LastEvaluatedKey && items.length > 0 ? items[items.length - 1].id : null };
  }

  /**
   * Shares of the organisation quoting `ref`: through the ticket GSI and, for shares made a moment
   * ago that it may not list yet, the ticket index's items; each read again from the table.
   */
  async findByTicket(orgId: string, ref: string): Promise<Share[]> {
    const [indexed, noted] = await Promise.all([
      queryIds(this.db, this.tableName, INDEXES.byTicket, keys.sharesOfTicket(orgId, ref), 500),
      ticketRecordIds(this.db, this.tableName, orgId, ref, 'share'),
    ]);
    const ids = [...new Set([...indexed, ...noted])];
    const shares = await Promise.all(ids.sort().map((id) => this.get(id)));
    return shares.filter((share): share is Share => share !== null && share.orgId === orgId);
  }

  /** Ids of live shares whose expiry or scheduled purge is at or before `now`, a page at a time. */
  dueBy(now: Date, page?: DuePaging) {
    return readDue(this.db, this.tableName, DUE_SHARD_KEYS, now, page);
  }

  private toShareItem(share: Share) {
    const due = share.status === 'active' ? [share.expiresAt, share.purgeScheduledAt].filter((at): at is string => !!at).sort()[0] : null;
    return toItem(keys.share(share.id), 'share', share, {
      gsi1pk: keys.sharesOfOrg(share.orgId),
      gsi1sk: share.id,
      ...(share.ticketRef ? { gsi4pk: keys.sharesOfTicket(share.orgId, share.ticketRef), gsi4sk: share.id } : {}),
      ...(due ? { gsi5pk: dueShard(share.id), gsi5sk: `${due}#${share.id}` } : {}),
    });
  }
}
