import type { Actor } from './model.ts';

/**
 * A webhook subscription as the service keeps it.
 *
 * The signing secrets are kept as they are, not hashed: every delivery computes an HMAC keyed
 * with the secret, and a hash cannot serve as that key (so the rule "never stored in plain text
 * where a hash serves" does not apply here). They are never logged, never put in an audit entry,
 * and never in an API answer except once, at creation. Several may be live at once (rotation): the
 * first is the current one; an older one stays until its `expiresAt`.
 */
export interface WebhookSubscription {
  id: string;
  orgId: string;
  url: string;
  description: string | null;
  events: string[];
  isActive: boolean;
  /** Set when the creating key was client-scoped: only that client's events go to it. */
  clientId: string | null;
  createdVia: 'api' | 'ui';
  failingSince: string | null;
  lastDeliveredAt: string | null;
  createdAt: string;
  secrets: Array<{ secret: string; expiresAt: string | null }>;
}

export type WebhookSecret = WebhookSubscription['secrets'][number];

const stillValid = (secret: WebhookSecret, now: Date) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime();

/**
 * The secrets after a rotation to `fresh`: it comes first, current, with no expiry. The secret
 * that was current stays valid for `overlapMs` more, so receivers can switch over; an older one
 * still valid keeps its expiry but never outlives that overlap, so an overlap of 0 leaves the new
 * secret alone. Expired ones are dropped. `oldSecretExpiresAt` is when the last old one stops
 * being sent (null: none is).
 */
export const rotatedSecrets = (secrets: readonly WebhookSecret[], fresh: string, now: Date, overlapMs: number) => {
  const until = now.getTime() + overlapMs;
  const kept = overlapMs <= 0 ? [] : secrets
    .filter((s) => stillValid(s, now))
    .map((s) => ({ secret: s.secret, expiresAt: new Date(s.expiresAt === null ? until : Math.min(Date.parse(s.expiresAt), until)).toISOString() }));
  return {
    secrets: [{ secret: fresh, expiresAt: null }, ...kept] as WebhookSecret[],
    oldSecretExpiresAt: kept.map((s) => s.expiresAt).sort().at(-1) ?? null,
  };
};

export interface WebhookRepository {
  get(orgId: string, webhookId: string): Promise<WebhookSubscription | null>;
  listForOrg(orgId: string): Promise<WebhookSubscription[]>;
  /** Stores the subscription with its `webhook.created` audit entry, in one transaction. */
  create(subscription: WebhookSubscription, actor: Actor): Promise<void>;
  /** Deletes it with its `webhook.deleted` audit entry, in one transaction. */
  delete(subscription: WebhookSubscription, actor: Actor): Promise<void>;
}

/** SPEC.md's Webhook object: never a secret. */
export const toWebhookView = (subscription: WebhookSubscription) => ({
  id: subscription.id,
  object: 'webhook' as const,
  url: subscription.url,
  description: subscription.description ?? null,
  events: [...subscription.events],
  is_active: subscription.isActive,
  client_id: subscription.clientId ?? null,
  created_via: subscription.createdVia,
  failing_since: subscription.failingSince ?? null,
  last_delivered_at: subscription.lastDeliveredAt ?? null,
  created_at: subscription.createdAt,
});
export type WebhookView = ReturnType<typeof toWebhookView>;
