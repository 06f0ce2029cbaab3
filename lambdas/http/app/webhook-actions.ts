import { illegalTransition, notFound } from '#core/errors.ts';
import { eventId } from '#core/events.ts';
import { isId } from '#core/ids.ts';
import { memberWebhookManager, memberWebhookSender, visibleWebhook } from '#core/use-cases/webhooks.ts';
import type { MemberCaller } from '#core/member-access.ts';
import { DeliveryStore, type Delivery } from '#store/deliveries.ts';
import { WebhookActionRefused, WebhookActionTargetMissing, type WebhookActionDeps } from '#workers/webhook-actions.ts';
import type { AppDeps } from '../../app-deps.ts';
import type { DynamoWebhooks } from '#store/webhooks.ts';

/** The wired dependencies with the webhook subscriptions' store (store-wiring.ts withWebhookStore). */
type WebhookStoreDeps = AppDeps & { webhooks: DynamoWebhooks };
import type { ApiEvent } from '../types.ts';
import { pathIdOf } from './session-handler.ts';

/**
 * The member app's side of the webhook actions (ping, redelivery, rotation): the same actions as
 * the operator's CLI (workers/webhook-actions.ts), audited with the member. The first attempt of a
 * ping or redelivery is left to the delivery worker (the fan-out enqueues the delivery its entry
 * names), so these functions never open a signing secret.
 */
const built = new WeakMap<AppDeps, { actions: WebhookActionDeps; deliveries: DeliveryStore }>();

export const webhookActionDeps = (deps: WebhookStoreDeps) => {
  let value = built.get(deps);
  if (!value) {
    const deliveries = new DeliveryStore(deps.db, deps.tableName, deps.audit);
    value = { deliveries, actions: { clock: deps.clock, deliveries, webhooks: deps.webhooks, sealer: deps.sealer, attemptNow: null } };
    built.set(deps, value);
  }
  return value;
};

/**
 * The subscription of the path, which this owner or admin may manage; 403 or 404 otherwise.
 * `sends`: the action sends to it (a ping, a redelivery), which the plan must include.
 */
export const managedWebhook = async (deps: WebhookStoreDeps, caller: MemberCaller, event: ApiEvent, sends = false) => {
  const manager = sends ? memberWebhookSender(caller) : memberWebhookManager(caller);
  const subscription = await visibleWebhook(deps, manager, pathIdOf(event, 'webhook'));
  return { manager, subscription };
};

/** An action refused as the operator's would be, in the member endpoints' terms: 404 or 409. */
export const asMemberAnswer = async <Result>(action: () => Promise<Result>): Promise<Result> => {
  try {
    return await action();
  } catch (error) {
    if (error instanceof WebhookActionTargetMissing) throw notFound('No webhook or event with this id.');
    if (error instanceof WebhookActionRefused) throw illegalTransition(`This cannot be done: ${error.message}.`);
    throw error;
  }
};

/** A delivery as the webhook's page lists it; `message_id` is its `webhook-id` header. */
export const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  object: 'webhook_delivery' as const,
  event_id: eventId(delivery.eventSeq),
  event_type: delivery.eventType,
  message_id: delivery.webhookMessageId,
  status: delivery.status,
  attempts: delivery.attempts,
  next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
  last_attempt_at: delivery.lastAttemptAt ?? null,
  last_status: delivery.lastStatus ?? null,
  last_error: delivery.lastError ?? null,
  created_at: delivery.createdAt,
});

/** The `{deliveryId}` of the path, a delivery of this very subscription; 404 otherwise. */
export const deliveryOfPath = async (deps: WebhookStoreDeps, event: ApiEvent, orgId: string, webhookId: string) => {
  const id = event.pathParameters?.deliveryId;
  const delivery = isId(id) ? await webhookActionDeps(deps).deliveries.get(id) : null;
  if (!delivery || delivery.orgId !== orgId || delivery.webhookId !== webhookId) throw notFound('No delivery of this webhook with this id.');
  return delivery;
};
