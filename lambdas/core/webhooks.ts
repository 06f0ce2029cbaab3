import type { Actor } from './model.ts';
import type { SealedSecret, SecretSealer } from './sealing.ts';

/**
 * A webhook subscription as the service keeps it.
 *
 * The signing secrets are sealed (core/sealing.ts), not hashed: every delivery computes an HMAC
 * keyed with the secret, so the service must read it back, and a hash cannot serve as that key.
 * They are sealed where they are made (POST /webhooks, the operator's rotation) and opened only
 * where deliveries are signed; never logged, never put in an audit entry, and never in an API
 * answer except once, when made. Several may be live at once (rotation): the first is the current
 * one; an older one stays until its `expiresAt`.
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
  /** Set while the receiver is in the slow lane (core/delivery-lanes.ts); absent or null in the fast lane. */
  slowSince?: string | null;
  createdAt: string;
  /**
   * The sequence number of its `webhook.created` entry: it receives the events after it in the
   * organisation's audit order (absent on subscriptions stored before it was kept: `createdAt` decides).
   */
  createdSeq?: number;
  secrets: StoredWebhookSecret[];
}

/** A signing secret as stored: sealed for its subscription (webhookSecretContext). */
export interface WebhookSecret {
  sealed: SealedSecret;
  expiresAt: string | null;
}

/**
 * A signing secret as it was stored before secrets were sealed: still read (deliveries keep being
 * signed), never written; `npm run admin -- seal-stored-secrets` seals it in place.
 */
export interface LegacyWebhookSecret {
  secret: string;
  expiresAt: string | null;
}

export type StoredWebhookSecret = WebhookSecret | LegacyWebhookSecret;

/** The encryption context's purpose of a webhook signing secret; the stack grants KMS rights by it. */
export const WEBHOOK_SIGNING_PURPOSE = 'webhook_signing';

/** Where a sealed signing secret belongs: opening it for any other subscription fails. */
export const webhookSecretContext = (orgId: string, webhookId: string) => ({ orgId, webhookId, purpose: WEBHOOK_SIGNING_PURPOSE });

export const isLegacyWebhookSecret = (stored: StoredWebhookSecret): stored is LegacyWebhookSecret => typeof (stored as LegacyWebhookSecret).secret === 'string';

/** A new signing secret, sealed for its subscription, current (no expiry). */
export const sealedWebhookSecret = async (sealer: Pick<SecretSealer, 'seal'>, orgId: string, webhookId: string, secret: string): Promise<WebhookSecret> => ({
  sealed: await sealer.seal(secret, webhookSecretContext(orgId, webhookId)),
  expiresAt: null,
});

/** The secret in plain text, for signing: opens a sealed one; a legacy one is as it was stored. */
export const openWebhookSecret = (sealer: Pick<SecretSealer, 'open'>, orgId: string, webhookId: string, stored: StoredWebhookSecret) =>
  isLegacyWebhookSecret(stored) ? Promise.resolve(stored.secret) : sealer.open(stored.sealed, webhookSecretContext(orgId, webhookId));

export const stillValid = (secret: Pick<StoredWebhookSecret, 'expiresAt'>, now: Date) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime();

/**
 * The secrets after a rotation to `fresh`: it comes first, current, with no expiry. The secret
 * that was current stays valid for `overlapMs` more, so receivers can switch over; an older one
 * still valid keeps its expiry but never outlives that overlap, so an overlap of 0 leaves the new
 * secret alone. Expired ones are dropped. `oldSecretExpiresAt` is when the last old one stops
 * being sent (null: none is).
 */
export const rotatedSecrets = (secrets: readonly StoredWebhookSecret[], fresh: WebhookSecret, now: Date, overlapMs: number) => {
  const until = now.getTime() + overlapMs;
  const kept = overlapMs <= 0 ? [] : secrets
    .filter((s) => stillValid(s, now))
    .map((s) => ({ ...s, expiresAt: new Date(s.expiresAt === null ? until : Math.min(Date.parse(s.expiresAt), until)).toISOString() }));
  return {
    secrets: [{ ...fresh, expiresAt: null }, ...kept] as StoredWebhookSecret[],
    oldSecretExpiresAt: kept.map((s) => s.expiresAt).sort().at(-1) ?? null,
  };
};

export interface WebhookRepository {
  get(orgId: string, webhookId: string): Promise<WebhookSubscription | null>;
  listForOrg(orgId: string): Promise<WebhookSubscription[]>;
  /**
   * Stores the subscription with its `webhook.created` audit entry, in one transaction, on
   * condition that the organisation's plan still includes outbound webhooks (else WriteConflict).
   */
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
