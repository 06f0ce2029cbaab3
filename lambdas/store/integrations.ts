import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  InboundPurpose,
  InboundSecretTarget,
  Integration,
  IntegrationActivity,
  IntegrationRepository,
} from '#core/integration.ts';
import type { AuditEntryInput } from '#core/ports.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { fromItem, toItem } from './items.ts';
import { keys } from './keys.ts';
import { policyUnchanged } from './write-conditions.ts';
import { queryPrefix } from './query-prefix.ts';
import { TTL_ATTRIBUTE } from './table.ts';

/** The activity view keeps this many unusable posts (a ring: the oldest slot is overwritten) ... */
export const ACTIVITY_CAP = 100;
/** ... and none older than this. */
export const ACTIVITY_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

const PURPOSES: InboundPurpose[] = ['status', 'trigger'];

/**
 * An item's `kind` is its storage tag ('integration'), which the integration's own `kind` must not
 * overwrite: it is left out when written and put back when read (every integration is generic).
 * Items written before carry 'generic' as their tag, so both tags are read as integrations.
 */
const ITEM_KINDS = new Set(['integration', 'generic']);
const withoutKind = ({ kind: _kind, ...rest }: Integration) => rest;
const integrationOf = (item: Record<string, unknown> | undefined): Integration | null => {
  const record = fromItem<Omit<Integration, 'kind'>>(item);
  return record && { ...record, kind: 'generic' };
};

/**
 * Ticketing integrations under `ORG#<orgId>` / `INTEGRATION#<id>`, each URL secret's look-up item
 * under `INBOUND#<sha256 of the secret>`, and the activity ring under `INTEGRATION#<id>`. Every
 * change goes in one transaction with its audit entry; the activity log is not audited (it is the
 * record of posts that changed nothing).
 */
export class DynamoIntegrations implements IntegrationRepository {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async get(orgId: string, integrationId: string) {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.integration(orgId, integrationId), ConsistentRead: true }),
    );
    return integrationOf(Item);
  }

  async list(orgId: string) {
    const items = await queryPrefix(this.db, this.tableName, keys.organisation(orgId).pk, keys.integrationPrefix, { consistent: true });
    return items.filter((item) => ITEM_KINDS.has(item.kind as string)).map((item) => integrationOf(item)!);
  }

  async findBySecretHash(secretHash: string): Promise<InboundSecretTarget | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.inboundSecret(secretHash), ConsistentRead: true }));
    return Item ? { orgId: Item.orgId as string, integrationId: Item.integrationId as string, purpose: Item.purpose as InboundPurpose } : null;
  }

  create(integration: Integration, audit: AuditEntryInput) {
    return this.audit.append(audit, [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.integration(integration.orgId, integration.id), 'integration', withoutKind(integration)),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...PURPOSES.map((purpose) => this.lookupPut(integration, purpose)),
    ]);
  }

  replace(before: Integration, after: Integration, audit: AuditEntryInput, policyVersion?: number) {
    const writes: TransactItem[] = [
      ...(policyVersion === undefined ? [] : [policyUnchanged(this.tableName, after.orgId, policyVersion)]),
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.integration(after.orgId, after.id), 'integration', { ...withoutKind(after), version: before.version + 1 }),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
    ];
    // The reconciliation's list of connected integrations changes in the same transaction.
    if (after.helpdesk && !before.helpdesk) {
      writes.push({ Put: { TableName: this.tableName, Item: { ...keys.helpdeskIntegration(after.orgId, after.id), kind: 'helpdesk_integration', orgId: after.orgId, integrationId: after.id } } });
    } else if (!after.helpdesk && before.helpdesk) {
      writes.push({ Delete: { TableName: this.tableName, Key: keys.helpdeskIntegration(after.orgId, after.id) } });
    }
    for (const purpose of PURPOSES) {
      if (before.secretHashes[purpose] === after.secretHashes[purpose]) continue;
      // The old URL answers 404 from this commit on: its look-up goes in the same transaction.
      writes.push({ Delete: { TableName: this.tableName, Key: keys.inboundSecret(before.secretHashes[purpose]) } });
      writes.push(this.lookupPut(after, purpose));
    }
    return this.audit.append(audit, writes);
  }

  async recordActivity(integrationId: string, activity: IntegrationActivity) {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.integrationActivityCounter(integrationId),
        UpdateExpression: 'ADD n :one SET kind = :kind',
        ExpressionAttributeValues: { ':one': 1, ':kind': 'integration_activity_counter' },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const n = Attributes?.n as number;
    const slot = (n - 1) % ACTIVITY_CAP;
    const expires = Math.floor((Date.parse(activity.at) + ACTIVITY_RETENTION_DAYS * DAY_MS) / 1000);
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        // `n` orders posts that share a millisecond.
        Item: { ...keys.integrationActivity(integrationId, slot), kind: 'integration_activity', [TTL_ATTRIBUTE]: expires, n, ...activity },
      }),
    );
  }

  async activity(integrationId: string, now: Date): Promise<IntegrationActivity[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.integrationActivity(integrationId, 0).pk, ':prefix': keys.integrationActivityPrefix },
        ConsistentRead: true,
      }),
    );
    // DynamoDB TTL deletes late (up to days): the retention is applied on the way out too.
    const oldest = new Date(now.getTime() - ACTIVITY_RETENTION_DAYS * DAY_MS).toISOString();
    return (Items ?? [])
      .filter((item) => (item.at as string) >= oldest)
      .sort((a, b) => (b.n as number) - (a.n as number))
      .map((item) => ({
        at: item.at as string,
        purpose: item.purpose as InboundPurpose,
        reason: item.reason as string,
        ticketId: (item.ticketId as string | null) ?? null,
        statusWord: (item.statusWord as string | null) ?? null,
      }));
  }

  private lookupPut(integration: Integration, purpose: InboundPurpose): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.inboundSecret(integration.secretHashes[purpose]),
          kind: 'inbound_secret',
          orgId: integration.orgId,
          integrationId: integration.id,
          purpose,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }
}
