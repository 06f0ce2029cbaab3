/**
 * A test ping or a manual redelivery whose subscription is deleted while it is being made: the
 * delete wins, as for a subscription deleted before (no such webhook), and neither a `ping` nor a
 * `webhook.redelivered` entry, nor a delivery, follows `webhook.deleted` in the audit chain.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import type { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { pingWebhook, redeliverEvent, WebhookActionTargetMissing, type WebhookActionDeps } from '../../lambdas/workers/webhook-actions.ts';
import { eventId } from '../../lambdas/core/events.ts';
import { auditEntries, itemsUnder } from '../support/shapes.ts';
import { putSubscription, recordTestEvent, startDeliveryTestbed } from '../support/webhooks.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;
const actor = OPERATOR_ACTOR;

beforeAll(async () => ({ service, org, store } = await startDeliveryTestbed()));
afterAll(() => service?.stop());

/** The actions' deps, whose store deletes the subscription just before the entry and delivery are written. */
const depsDeletingFirst = (webhookId: string): WebhookActionDeps => {
  const deliveries = Object.create(store, {
    createWithEntry: {
      value: async (...args: Parameters<DeliveryStore['createWithEntry']>) => {
        const subscription = (await service.deps.webhooks.get(org.orgId, webhookId))!;
        await service.deps.webhooks.delete(subscription, actor);
        return store.createWithEntry(...args);
      },
    },
  }) as DeliveryStore;
  return { clock: service.deps.clock, deliveries, webhooks: service.deps.webhooks, sealer: service.deps.sealer, attemptNow: null };
};

const typesAfterDeletion = async () => {
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  return types.slice(types.lastIndexOf('webhook.deleted'));
};

it('refuses a ping whose subscription is deleted before it is written', async () => {
  const subscription = await putSubscription(service, org.orgId, { events: ['request.created'] });
  await expect(pingWebhook(depsDeletingFirst(subscription.id), actor, org.orgId, subscription.id)).rejects.toBeInstanceOf(WebhookActionTargetMissing);
  expect(await typesAfterDeletion()).toEqual(['webhook.deleted']);
});

it('refuses a redelivery whose subscription is deleted before it is written', async () => {
  const subscription = await putSubscription(service, org.orgId, { events: ['request.created'] });
  const event = await recordTestEvent(service, org);
  await expect(redeliverEvent(depsDeletingFirst(subscription.id), actor, org.orgId, eventId(event.seq), subscription.id)).rejects.toBeInstanceOf(WebhookActionTargetMissing);
  expect(await typesAfterDeletion()).toEqual(['webhook.deleted']);
});
