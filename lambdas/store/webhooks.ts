import type { AuditType } from '#core/audit-types.ts';
import { organisationAudit } from '#core/organisation-audit.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { PLANS, type Actor } from '#core/model.ts';
import { planIncludes } from '#core/plans.ts';
import type { AuditEntry } from '#core/ports.ts';
import type { WebhookRepository, WebhookSubscription } from '#core/webhooks.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { fromItem, toItem } from './items.ts';
import { keys } from './keys.ts';
import { queryPrefix } from './query-prefix.ts';

export const WEBHOOK_PREFIX = 'WEBHOOK#';

/**
 * Webhook subscriptions under `ORG#<orgId>` / `WEBHOOK#<id>`; each change is written in one
 * transaction with its audit entry. The signing secrets arrive sealed (see WebhookSubscription in
 * core/webhooks.ts: an HMAC key cannot be replaced by its hash, so it is sealed instead).
 */
export class DynamoWebhooks implements WebhookRepository {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async get(orgId: string, webhookId: string): Promise<WebhookSubscription | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.webhook(orgId, webhookId), ConsistentRead: true }),
    );
    return fromItem<WebhookSubscription>(Item);
  }

  /** The organisation's subscriptions, oldest first (ids are ULIDs). */
  async listForOrg(orgId: string): Promise<WebhookSubscription[]> {
    const items = await queryPrefix(this.db, this.tableName, keys.organisation(orgId).pk, WEBHOOK_PREFIX, { consistent: true });
    return items.map((item) => fromItem<WebhookSubscription>(item)!);
  }

  /** Stored with the sequence number of its `webhook.created` entry: the events after that one are its (fan-out.ts). */
  async create(subscription: WebhookSubscription, actor: Actor) {
    const write = ([created]: AuditEntry[]): TransactItem[] => [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.webhook(subscription.orgId, subscription.id), 'webhook', { ...subscription, createdSeq: created!.seq }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      planIncludesWebhooks(this.tableName, subscription.orgId),
    ];
    await this.audit.append(auditOf('webhook.created', subscription, actor), write);
  }

  /** Deletes the subscription if it is still there (a WriteConflict otherwise). */
  async delete(subscription: WebhookSubscription, actor: Actor) {
    const write: TransactItem = {
      Delete: {
        TableName: this.tableName,
        Key: keys.webhook(subscription.orgId, subscription.id),
        ConditionExpression: 'attribute_exists(pk)',
      },
    };
    await this.audit.append(auditOf('webhook.deleted', subscription, actor), [write]);
  }

  /**
   * Replaces the signing secrets (core/webhooks.ts rotatedSecrets) with a `webhook.secret_rotated`
   * audit entry that says until when the old secret is still sent, never a secret. On condition
   * that the secrets are still those read: a WriteConflict if the subscription went away or
   * another rotation came first (else that rotation's new secret would be lost unseen).
   */
  async rotateSecret(before: WebhookSubscription, secrets: WebhookSubscription['secrets'], oldSecretExpiresAt: string | null, actor: Actor) {
    const write: TransactItem = {
      Update: {
        TableName: this.tableName,
        Key: keys.webhook(before.orgId, before.id),
        UpdateExpression: 'SET secrets = :secrets',
        ConditionExpression: 'attribute_exists(pk) AND secrets = :before',
        ExpressionAttributeValues: { ':secrets': secrets, ':before': before.secrets },
      },
    };
    const details = { webhook_id: before.id, old_secret_expires_at: oldSecretExpiresAt };
    return this.audit.append(auditOf('webhook.secret_rotated', before, actor, details), [write]);
  }
}

/** The receiver's address as audited: no query string or fragment, which may carry a token. */
const auditedUrl = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/** The audit entry of a change: what was subscribed where (or the given details), never the secret. */
const auditOf = (
  type: AuditType,
  subscription: WebhookSubscription,
  actor: Actor,
  details: Record<string, unknown> = { webhook_id: subscription.id, url: auditedUrl(subscription.url), events: subscription.events },
) => organisationAudit(subscription.orgId, actor, type, { details }, subscription.clientId);

/** The organisation's plan, as it stands when the write commits, includes outbound webhooks: a move to Free that commits first wins. */
const planIncludesWebhooks = (tableName: string, orgId: string): TransactItem => {
  const plans = PLANS.filter((plan) => planIncludes(plan, 'webhooks'));
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.organisation(orgId),
      ConditionExpression: `#plan IN (${plans.map((_, n) => `:plan${n}`).join(', ')})`,
      ExpressionAttributeNames: { '#plan': 'plan' },
      ExpressionAttributeValues: Object.fromEntries(plans.map((plan, n) => [`:plan${n}`, plan])),
    },
  };
};
