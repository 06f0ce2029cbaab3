import { WriteConflict } from '#core/errors.ts';
import { eventId, isEventType, seqOfEventId } from '#core/events.ts';
import { newId } from '#core/ids.ts';
import type { AuditType } from '#core/audit-types.ts';
import type { Actor } from '#core/model.ts';
import type { AuditEntry, AuditEntryInput } from '#core/ports.ts';
import { newWebhookSecret } from '#core/webhook-signature.ts';
import type { SecretSealer } from '#core/sealing.ts';
import { rotatedSecrets, sealedWebhookSecret, type WebhookSubscription } from '#core/webhooks.ts';
import type { Clock } from '#core/clock.ts';
import { pendingDelivery, type Delivery, type DeliveryStore } from '#store/deliveries.ts';
import type { DynamoWebhooks } from '#store/webhooks.ts';
import type { DeliveryOutcome } from './deliver.ts';

/**
 * The webhook actions of the operator (bin/admin/webhook-commands.ts) and of an owner or admin in
 * the member app (lambdas/http/app/webhook-actions.ts): a test ping, a manual redelivery and a
 * secret rotation, each audited with whoever acted. Each writes its delivery or change in one
 * transaction with its audit entry. A ping's or redelivery's entry names its delivery, which the
 * fan-out then enqueues for the delivery worker; the CLI also makes the first attempt at once
 * (`attemptNow`), and further attempts are the delivery sweep's, as for any delivery.
 */

/** The action cannot be done as asked (inactive webhook, not an event, ...): nothing was written. */
export class WebhookActionRefused extends Error {
  override readonly name: string = 'WebhookActionRefused';
}
/** No such webhook (or event) in the organisation: nothing was written. */
export class WebhookActionTargetMissing extends WebhookActionRefused {
  override readonly name = 'WebhookActionTargetMissing';
}

/** A rotation keeps the old secret this long by default; longer than the maximum would defeat it. */
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 720;

export interface WebhookActionDeps {
  clock: Clock;
  deliveries: Pick<DeliveryStore, 'createWithEntry' | 'get' | 'auditEntry'>;
  webhooks: Pick<DynamoWebhooks, 'get' | 'rotateSecret'>;
  /** Seals the new secret of a rotation. */
  sealer: Pick<SecretSealer, 'seal'>;
  /**
   * Makes the first attempt here and now (the CLI, with the worker's own deliverOne); null leaves
   * it to the delivery worker, which the fan-out sends the delivery to.
   */
  attemptNow: ((deliveryId: string) => Promise<DeliveryOutcome>) | null;
}

const subscriptionOf = async (deps: Pick<WebhookActionDeps, 'webhooks'>, orgId: string, webhookId: string) => {
  const subscription = await deps.webhooks.get(orgId, webhookId);
  if (!subscription) throw new WebhookActionTargetMissing(`organisation ${orgId} has no webhook ${webhookId}`);
  return subscription;
};

/** A ping or redelivery to an inactive subscription would only be cancelled by the worker. */
const activeSubscriptionOf = async (deps: Pick<WebhookActionDeps, 'webhooks'>, orgId: string, webhookId: string) => {
  const subscription = await subscriptionOf(deps, orgId, webhookId);
  if (!subscription.isActive) throw new WebhookActionRefused(`webhook ${webhookId} is not active`);
  return subscription;
};

const auditInput = (orgId: string, type: AuditType, actor: Actor, clientId: string | null, details: Record<string, unknown>): AuditEntryInput => ({
  orgId,
  type,
  actor,
  clientId,
  requestId: null,
  data: { details, actor: { type: actor.type, label: actor.label } },
});

/** What a ping or redelivery answers: the delivery made, and what came of its first attempt (`after`, the delivery then). */
const attemptResult = (delivery: Delivery, outcome: DeliveryOutcome | 'queued', after: Delivery | null) => ({
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
});
export type AttemptResult = ReturnType<typeof attemptResult>;

/** Given the answer just before the delivery is stored, when the worker makes the first attempt (a caller's Idempotency-Key keeps it in that transaction). */
export type PreparedAttempt = (queued: AttemptResult) => void;

/**
 * Writes the entry and the delivery, then (`attemptNow`) the first attempt right away. The answer says what came
 * of it; after a failure the delivery stays pending with its next attempt time (1 minute on after
 * the first), which the delivery sweep honours. Left to the worker, the answer is known before the
 * write, and `prepared` is given it.
 */
const createAndAttempt = async (deps: WebhookActionDeps, webhookId: string, input: AuditEntryInput, deliveryOf: (entry: AuditEntry) => Delivery, prepared?: PreparedAttempt) => {
  const made = (entry: AuditEntry) => {
    const delivery = deliveryOf(entry);
    if (!deps.attemptNow) prepared?.(attemptResult(delivery, 'queued', delivery));
    return delivery;
  };
  const { delivery } = await deps.deliveries.createWithEntry(input, made).catch(async (error: unknown) => {
    // Refused because the subscription was deleted or deactivated meanwhile: as if it had been before.
    if (error instanceof WriteConflict) await activeSubscriptionOf(deps, input.orgId, webhookId);
    throw error;
  });
  const outcome: DeliveryOutcome | 'queued' = deps.attemptNow ? await deps.attemptNow(delivery.id) : 'queued';
  // Left to the worker, the delivery is as just written.
  const after = deps.attemptNow ? await deps.deliveries.get(delivery.id) : delivery;
  return attemptResult(delivery, outcome, after);
};

/**
 * A test `ping` to one subscription: a `ping` audit entry (an event, so it has an `evt_<seq>` id
 * and is in GET /events) with a delivery of it to that subscription alone (the fan-out ignores
 * `ping`), then its first attempt.
 */
export const pingWebhook = async (deps: WebhookActionDeps, actor: Actor, orgId: string, webhookId: string, prepared?: PreparedAttempt): Promise<AttemptResult> => {
  const subscription = await activeSubscriptionOf(deps, orgId, webhookId);
  const id = newId(deps.clock.now().getTime());
  const input = auditInput(orgId, 'ping', actor, subscription.clientId ?? null, { webhook_id: subscription.id, delivery_id: id });
  return createAndAttempt(deps, subscription.id, input, (entry) =>
    pendingDelivery({ id, webhookId: subscription.id, orgId, clientId: entry.clientId, eventSeq: entry.seq, eventType: entry.type }, entry.occurredAt),
    prepared,
  );
};

/**
 * A manual redelivery of an event to one subscription: a new delivery (new delivery id, new
 * `webhook-id`) of the same audit entry, so the body and its event `id` are the same as before
 * (SPEC.md: "a new webhook-id and the same event id"). Audited as `webhook.redelivered` in the
 * same transaction, then attempted at once.
 */
export const redeliverEvent = async (
  deps: WebhookActionDeps,
  actor: Actor,
  orgId: string,
  eventIdText: string,
  webhookId: string,
  prepared?: PreparedAttempt,
): Promise<AttemptResult> => {
  const seq = seqOfEventId(eventIdText);
  if (seq === null) throw new WebhookActionRefused(`${eventIdText} is not an event id (evt_<number>, as GET /events shows it)`);
  const event = await deps.deliveries.auditEntry(orgId, seq);
  if (!event) throw new WebhookActionTargetMissing(`organisation ${orgId} has no event ${eventIdText}`);
  if (!isEventType(event.type)) throw new WebhookActionRefused(`${eventIdText} is a ${event.type} audit entry, not an event`);
  const subscription = await activeSubscriptionOf(deps, orgId, webhookId);
  // A receiver gets only the types it subscribed to, redelivered or not; a test ping goes only to
  // the subscription it tests, whose id it names.
  if (event.type === 'ping') {
    const tested = (event.data as { details?: { webhook_id?: unknown } } | null)?.details?.webhook_id;
    if (tested !== subscription.id) throw new WebhookActionRefused(`${eventIdText} is a test ping of another webhook: a ping goes only to the webhook it tests`);
  } else if (!subscription.events.includes(event.type)) {
    throw new WebhookActionRefused(`webhook ${webhookId} does not take ${event.type} events`);
  }
  // A client-scoped subscription gets only its client's events, redelivered or not.
  if (subscription.clientId && subscription.clientId !== event.clientId) {
    throw new WebhookActionRefused(`${eventIdText} is not an event of client ${subscription.clientId}, to which webhook ${webhookId} is scoped`);
  }
  const id = newId(deps.clock.now().getTime());
  const input = auditInput(orgId, 'webhook.redelivered', actor, subscription.clientId ?? null, { webhook_id: subscription.id, event_id: eventIdText, delivery_id: id });
  return createAndAttempt(deps, subscription.id, input, (audited) =>
    pendingDelivery({ id, webhookId: subscription.id, orgId, clientId: event.clientId, eventSeq: event.seq, eventType: event.type }, audited.occurredAt),
    prepared,
  );
};

/** A rotation's outcome as its caller shows it: the new secret (once), when the old one stops, the subscription now. */
export interface RotatedWebhookSecret {
  secret: string;
  oldSecretExpiresAt: string | null;
  subscription: WebhookSubscription;
}

/**
 * A new signing secret for a subscription, made as POST /webhooks makes one and sealed before it
 * is stored. It becomes current; the old one is still sent alongside for `overlapHours`
 * (deliver.ts signs with every valid secret), then dropped. Answers the new secret: the caller
 * shows it once and nowhere else. `prepared` is given the result just before it is stored, so the
 * caller's answer can go in the same transaction (an idempotent replay of a lost answer).
 */
export const rotateWebhookSecret = async (
  deps: Pick<WebhookActionDeps, 'clock' | 'webhooks' | 'sealer'>,
  actor: Actor,
  orgId: string,
  webhookId: string,
  overlapHours: number,
  prepared?: (result: RotatedWebhookSecret) => void,
) => {
  if (!(overlapHours >= 0 && overlapHours <= MAX_OVERLAP_HOURS)) throw new WebhookActionRefused(`the overlap must be from 0 to ${MAX_OVERLAP_HOURS} hours`);
  const before = await subscriptionOf(deps, orgId, webhookId);
  const secret = newWebhookSecret();
  const fresh = await sealedWebhookSecret(deps.sealer, orgId, webhookId, secret);
  const { secrets, oldSecretExpiresAt } = rotatedSecrets(before.secrets ?? [], fresh, deps.clock.now(), overlapHours * 3_600_000);
  const rotated = { secret, oldSecretExpiresAt, subscription: { ...before, secrets } };
  prepared?.(rotated);
  try {
    const entry = await deps.webhooks.rotateSecret(before, secrets, oldSecretExpiresAt, actor);
    return { ...rotated, entry };
  } catch (error) {
    if (!(error instanceof WriteConflict)) throw error;
    throw new WebhookActionRefused(`webhook ${webhookId} was deleted or rotated meanwhile; nothing was changed`);
  }
};
