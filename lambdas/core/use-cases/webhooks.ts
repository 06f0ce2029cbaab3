import * as z from 'zod/mini';
import { apiActor, type Caller } from '../caller.ts';
import type { Actor } from '../model.ts';
import type { Clock } from '../clock.ts';
import { notFound, planRequired, validationFailed, WriteConflict, type FieldErrors } from '../errors.ts';
import { memberActor, requireManager, type MemberCaller } from '../member-access.ts';
import { isSubscribableEventType, ORGANISATION_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../events.ts';
import { newId } from '../ids.ts';
import { planRefusal, requirePlan } from '../plans.ts';
import { fieldErrorsOf, requiredOr } from '../validation.ts';
import { checkWebhookUrl, type WebhookUrlOptions } from '../webhook-url.ts';
import { newWebhookSecret } from '../webhook-signature.ts';
import type { SecretSealer } from '../sealing.ts';
import { sealedWebhookSecret, toWebhookView, type WebhookRepository, type WebhookView, type WebhookSubscription } from '../webhooks.ts';

export interface WebhookDeps {
  webhooks: WebhookRepository;
  clock: Clock;
  webhookPolicy: WebhookUrlOptions;
  /** Seals the new signing secret before it is stored; only its answer shows it in plain text. */
  sealer: Pick<SecretSealer, 'seal'>;
}

/**
 * A length check judged only on a list: zod judges any value with a length (a string sent for the
 * list too) unless the check says when. Its checks take `when`, which the helpers' parameter types leave out.
 */
const onlyOnAList: object = { when: (payload: { value: unknown }) => Array.isArray(payload.value) };

/** POST /webhooks body; the URL and the event types are judged after the shape. */
export const createWebhookBody = z.strictObject({
  url: z.string({ error: requiredOr('Must be a URL.') }).check(z.minLength(1, 'Must be a URL.'), z.maxLength(2048, 'Must be at most 2048 characters.')),
  events: z
    .array(z.string('Must be an event type.'), { error: requiredOr('Must be an array of event types.') })
    .check(
      z.minLength(1, { message: 'Must list at least one event type.', ...onlyOnAList }),
      // One of each at most: each wrong one is named in its own message, and a longer list (a
      // body of megabytes of them) would make an answer many times its size.
      z.maxLength(SUBSCRIBABLE_EVENT_TYPES.length, { message: `Must list at most ${SUBSCRIBABLE_EVENT_TYPES.length} event types.`, ...onlyOnAList }),
    ),
  description: z.nullish(z.string('Must be a string.').check(z.maxLength(200, 'Must be at most 200 characters.'))),
});

/**
 * Who manages subscriptions: an API key (POST /v1/webhooks), or an owner or admin in the member
 * app (/app/api/webhooks). The rules are the same; only the scope, the audited actor and
 * `created_via` differ.
 */
export interface WebhookManager {
  orgId: string;
  /** A client-scoped key's client: it sees, and subscribes to, only that client's events. */
  clientId: string | null;
  actor: Actor;
  createdVia: WebhookSubscription['createdVia'];
}

export const apiWebhookManager = (caller: Caller): WebhookManager => ({
  orgId: caller.org.id,
  clientId: caller.apiKey.clientId,
  actor: apiActor(caller),
  createdVia: 'api',
});

/** A client-scoped manager sees only its client's subscriptions; an organisation-wide one sees all. */
const visibleTo = (manager: WebhookManager, subscription: WebhookSubscription) =>
  manager.clientId === null || subscription.clientId === manager.clientId;

/** The subscription `webhookId` if this manager may see it; 404 otherwise. */
export const visibleWebhook = async (deps: Pick<WebhookDeps, 'webhooks'>, manager: WebhookManager, webhookId: string) => {
  const subscription = await deps.webhooks.get(manager.orgId, webhookId);
  if (!subscription || !visibleTo(manager, subscription)) throw notFound('No webhook with this id.');
  return subscription;
};

/**
 * POST /webhooks: subscribes an https URL on a public host to some event types. A client-scoped
 * key's subscription gets only that client's events. Answers the Webhook with its signing secret,
 * shown this once. `prepared` is given the result just before the subscription is stored (the
 * caller's answer can go in the same transaction).
 */
export const createWebhook = async (deps: WebhookDeps, manager: WebhookManager, input: unknown, prepared?: (result: WebhookView & { secret: string }) => void) => {
  const parsed = createWebhookBody.safeParse(input ?? {});
  const errors: FieldErrors = parsed.success ? {} : fieldErrorsOf(parsed.error);
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  let url = '';
  if (parsed.success) {
    const check = checkWebhookUrl(parsed.data.url, deps.webhookPolicy);
    if (check.ok) url = check.url;
    else add('url', check.reason);
    for (const type of parsed.data.events) {
      if (type === 'ping') add('events', '"ping" is sent by the test action only and cannot be subscribed to.');
      else if (!isSubscribableEventType(type)) {
        add('events', `Unknown event type ${JSON.stringify(type)}; one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.`);
      } else if (manager.clientId !== null && ORGANISATION_EVENT_TYPES.includes(type)) {
        // Accepted, it would stay silent for ever: the subscription gets only its client's events.
        add('events', `${JSON.stringify(type)} is about the organisation, not a client: a client-scoped key's subscription would never receive it.`);
      }
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) throw validationFailed(errors);

  const body = parsed.data;
  const id = newId();
  const secret = newWebhookSecret();
  const subscription: WebhookSubscription = {
    id,
    orgId: manager.orgId,
    url,
    description: body.description ?? null,
    events: [...new Set(body.events)],
    isActive: true,
    clientId: manager.clientId,
    createdVia: manager.createdVia,
    failingSince: null,
    lastDeliveredAt: null,
    createdAt: deps.clock.now().toISOString(),
    secrets: [await sealedWebhookSecret(deps.sealer, manager.orgId, id, secret)],
  };
  const result = { ...toWebhookView(subscription), secret };
  prepared?.(result);
  try {
    await deps.webhooks.create(subscription, manager.actor);
  } catch (error) {
    // The id is new: only a move to a plan without outbound webhooks, committed meanwhile, refuses it.
    if (error instanceof WriteConflict) throw planRequired(planRefusal('webhooks'));
    throw error;
  }
  return result;
};

/** GET /webhooks: the subscriptions this manager may see. */
export const listWebhooks = async (deps: Pick<WebhookDeps, 'webhooks'>, manager: WebhookManager) => {
  const all = await deps.webhooks.listForOrg(manager.orgId);
  return { object: 'list' as const, data: all.filter((subscription) => visibleTo(manager, subscription)).map(toWebhookView) };
};

/** One subscription this manager may see, as the list shows it; 404 otherwise. */
export const readWebhook = async (deps: Pick<WebhookDeps, 'webhooks'>, manager: WebhookManager, webhookId: string) =>
  toWebhookView(await visibleWebhook(deps, manager, webhookId));

/**
 * DELETE /webhooks/{id}: unsubscribes; 404 when there is no such subscription this manager may see.
 * `prepared` is called just before the deletion is stored (a caller's Idempotency-Key keeps its answer in that transaction).
 */
export const deleteWebhook = async (deps: Pick<WebhookDeps, 'webhooks'>, manager: WebhookManager, webhookId: string, prepared?: () => void) => {
  const subscription = await visibleWebhook(deps, manager, webhookId);
  prepared?.();
  try {
    await deps.webhooks.delete(subscription, manager.actor);
  } catch (error) {
    // Deleted meanwhile by another call: it is gone, as this call asked.
    if (error instanceof WriteConflict) throw notFound('No webhook with this id.');
    throw error;
  }
};

/** An owner or admin in the member app manages the organisation's subscriptions, all of them. */
export const memberWebhookManager = (caller: MemberCaller): WebhookManager => {
  requireManager(caller, 'manage webhooks');
  return { orgId: caller.org.id, clientId: null, actor: memberActor(caller.member), createdVia: 'ui' };
};

/**
 * The same manager, for what sends (subscribing, a test ping, a redelivery): only on a plan that
 * includes outbound webhooks. Listing, reading and deleting need no plan, so a downgraded
 * organisation can see and tidy up what it subscribed before (core/plans.ts).
 */
export const memberWebhookSender = (caller: MemberCaller): WebhookManager => {
  const manager = memberWebhookManager(caller);
  requirePlan(caller.org, 'webhooks');
  return manager;
};
