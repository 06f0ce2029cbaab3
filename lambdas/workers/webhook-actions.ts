import { WriteConflict } from '#core/errors.ts';
import { eventId, isEventType, seqOfEventId } from '#core/events.ts';
import { newId } from '#core/ids.ts';
import { OPERATOR_ACTOR } from '#core/model.ts';
import type { AuditEntry, AuditEntryInput } from '#core/ports.ts';
import { newWebhookSecret } from '#core/webhook-signature.ts';
import type { SecretSealer } from '#core/sealing.ts';
import { rotatedSecrets, sealedWebhookSecret } from '#core/webhooks.ts';
import { pendingDelivery, type Delivery, type DeliveryStore } from '#store/deliveries.ts';
import type { DynamoWebhooks } from '#store/webhooks.ts';
import { deliverOne, type DeliverDeps } from './deliver.ts';

/**
 * The operator's webhook actions (bin/admin/webhook-commands.ts): a test ping, a manual
 * redelivery and a secret rotation. Each writes its delivery or change in one transaction with its
 * audit entry; a ping or redelivery then makes its first attempt at once with the delivery
 * worker's own deliverOne, and further attempts are the delivery sweep's, as for any delivery.
 */

/** The action cannot be done as asked (unknown or inactive webhook, not an event, ...): nothing was written. */
export class WebhookActionRefused extends Error {
  override readonly name = 'WebhookActionRefused';
}

export interface WebhookActionDeps extends DeliverDeps {
  webhooks: Pick<DynamoWebhooks, 'get' | 'rotateSecret'>;
  /** Opens the signing secrets for an attempt, seals the new one of a rotation. */
  sealer: SecretSealer;
}

const subscriptionOf = async (deps: Pick<WebhookActionDeps, 'webhooks'>, orgId: string, webhookId: string) => {
  const subscription = await deps.webhooks.get(orgId, webhookId);
  if (!subscription) throw new WebhookActionRefused(`organisation ${orgId} has no webhook ${webhookId}`);
  return subscription;
};

/** A ping or redelivery to an inactive subscription would only be cancelled by the worker. */
const activeSubscriptionOf = async (deps: Pick<WebhookActionDeps, 'webhooks'>, orgId: string, webhookId: string) => {
  const subscription = await subscriptionOf(deps, orgId, webhookId);
  if (!subscription.isActive) throw new WebhookActionRefused(`webhook ${webhookId} is not active`);
  return subscription;
};

const auditInput = (orgId: string, type: string, clientId: string | null, details: Record<string, unknown>): AuditEntryInput => ({
  orgId,
  type,
  actor: OPERATOR_ACTOR,
  clientId,
  requestId: null,
  data: { details, actor: { ...OPERATOR_ACTOR } },
});

/**
 * Writes the entry and the delivery, then the first attempt right away. The answer says what came
 * of it; after a failure the delivery stays pending with its next attempt time (1 minute on after
 * the first), which the delivery sweep honours.
 */
const createAndAttempt = async (deps: WebhookActionDeps, input: AuditEntryInput, deliveryOf: (entry: AuditEntry) => Delivery) => {
  const { delivery } = await deps.deliveries.createWithEntry(input, deliveryOf);
  const outcome = await deliverOne(deps, delivery.id);
  const after = await deps.deliveries.get(delivery.id);
  return {
    event_id: eventId(delivery.eventSeq),
    event_type: delivery.eventType,
    webhook_id: delivery.webhookId,
    delivery_id: delivery.id,
    /** The `webhook-id` header of this delivery. */
    message_id: delivery.webhookMessageId,
    outcome,
    receiver_status: after?.lastStatus ?? null,
    error: after?.lastError ?? null,
    next_attempt_at: after?.status === 'pending' ? after.nextAttemptAt : null,
  };
};
export type AttemptResult = Awaited<ReturnType<typeof createAndAttempt>>;

/**
 * A test `ping` to one subscription: a `ping` audit entry (an event, so it has an `evt_<seq>` id
 * and is in GET /events) with a delivery of it to that subscription alone (the fan-out ignores
 * `ping`), then its first attempt.
 */
export const pingWebhook = async (deps: WebhookActionDeps, orgId: string, webhookId: string): Promise<AttemptResult> => {
  const subscription = await activeSubscriptionOf(deps, orgId, webhookId);
  const id = newId(deps.clock.now().getTime());
  const input = auditInput(orgId, 'ping', subscription.clientId ?? null, { webhook_id: subscription.id });
  return createAndAttempt(deps, input, (entry) =>
    pendingDelivery({ id, webhookId: subscription.id, orgId, clientId: entry.clientId, eventSeq: entry.seq, eventType: entry.type }, entry.occurredAt),
  );
};

/**
 * A manual redelivery of an event to one subscription: a new delivery (new delivery id, new
 * `webhook-id`) of the same audit entry, so the body and its event `id` are the same as before
 * (SPEC.md: "a new webhook-id and the same event id"). Audited as `webhook.redelivered` in the
 * same transaction, then attempted at once.
 */
export const redeliverEvent = async (deps: WebhookActionDeps, orgId: string, eventIdText: string, webhookId: string): Promise<AttemptResult> => {
  const seq = seqOfEventId(eventIdText);
  if (seq === null) throw new WebhookActionRefused(`${eventIdText} is not an event id (evt_<number>, as GET /events shows it)`);
  const event = await deps.deliveries.auditEntry(orgId, seq);
  if (!event) throw new WebhookActionRefused(`organisation ${orgId} has no event ${eventIdText}`);
  if (!isEventType(event.type)) throw new WebhookActionRefused(`${eventIdText} is a ${event.type} audit entry, not an event`);
  const subscription = await activeSubscriptionOf(deps, orgId, webhookId);
  // A receiver gets only the types it subscribed to, redelivered or not (a test ping excepted).
  if (event.type !== 'ping' && !subscription.events.includes(event.type)) {
    throw new WebhookActionRefused(`webhook ${webhookId} does not take ${event.type} events`);
  }
  // A client-scoped subscription gets only its client's events, redelivered or not.
  if (subscription.clientId && subscription.clientId !== event.clientId) {
    throw new WebhookActionRefused(`${eventIdText} is not an event of client ${subscription.clientId}, to which webhook ${webhookId} is scoped`);
  }
  const id = newId(deps.clock.now().getTime());
  const input = auditInput(orgId, 'webhook.redelivered', subscription.clientId ?? null, { webhook_id: subscription.id, event_id: eventIdText, delivery_id: id });
  return createAndAttempt(deps, input, (audited) =>
    pendingDelivery({ id, webhookId: subscription.id, orgId, clientId: event.clientId, eventSeq: event.seq, eventType: event.type }, audited.occurredAt),
  );
};

/**
 * A new signing secret for a subscription, made as POST /webhooks makes one and sealed before it
 * is stored. It becomes current; the old one is still sent alongside for `overlapHours`
 * (deliver.ts signs with every valid secret), then dropped. Answers the new secret: the caller
 * shows it once and nowhere else.
 */
export const rotateWebhookSecret = async (
  deps: Pick<WebhookActionDeps, 'clock' | 'webhooks'> & { sealer: Pick<SecretSealer, 'seal'> },
  orgId: string,
  webhookId: string,
  overlapHours: number,
) => {
  if (!(overlapHours >= 0)) throw new WebhookActionRefused('the overlap must be 0 or more hours');
  const before = await subscriptionOf(deps, orgId, webhookId);
  const secret = newWebhookSecret();
  const fresh = await sealedWebhookSecret(deps.sealer, orgId, webhookId, secret);
  const { secrets, oldSecretExpiresAt } = rotatedSecrets(before.secrets ?? [], fresh, deps.clock.now(), overlapHours * 3_600_000);
  try {
    const entry = await deps.webhooks.rotateSecret(before, secrets, oldSecretExpiresAt, OPERATOR_ACTOR);
    return { secret, oldSecretExpiresAt, subscription: { ...before, secrets }, entry };
  } catch (error) {
    if (!(error instanceof WriteConflict)) throw error;
    throw new WebhookActionRefused(`webhook ${webhookId} was deleted or rotated meanwhile; nothing was changed`);
  }
};
