/**
 * Which events a new subscription receives: those after it in the organisation's audit order, and
 * only those. Whether a subscription existed when an event happened is a matter of the chain's
 * order (the subscription's `webhook.created` entry before or after the event), which clocks of
 * different function instances cannot decide: the subscription's time is taken before its secret
 * is sealed and stored, and instances' clocks differ.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebhook, type WebhookManager } from '../../lambdas/core/use-cases/webhooks.ts';
import type { WebhookRepository } from '../../lambdas/core/webhooks.ts';
import type { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { auditInsertRecord } from '../../lambdas/workers/stream-record.ts';
import { createHandler as createFanOut } from '../../lambdas/workers/fan-out.ts';
import { movableClock, quietLogger, recordingQueue, recordTestEvent, startDeliveryTestbed, storedAuditItems } from '../support/webhooks.ts';
import { auditEntries } from '../support/shapes.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;

beforeAll(async () => ({ service, org, store } = await startDeliveryTestbed({ clock })));
afterAll(() => service?.stop());

const manager = (): WebhookManager => ({ orgId: org.orgId, clientId: null, actor: { type: 'api', label: 'Ops key' }, createdVia: 'api' });

const recordEvent = () => recordTestEvent(service, org);

/** Subscribes to request.created; `meanwhile` runs just before the subscription is stored. */
const subscribe = async (meanwhile?: () => Promise<unknown>) => {
  const webhooks: WebhookRepository = Object.create(service.deps.webhooks, {
    create: {
      value: async (...args: Parameters<WebhookRepository['create']>) => {
        await meanwhile?.();
        return service.deps.webhooks.create(...args);
      },
    },
  });
  const deps = { webhooks, clock, webhookPolicy: service.deps.webhookPolicy, sealer: service.deps.sealer };
  return createWebhook(deps, manager(), { url: 'https://hooks.example.com/handoff', events: ['request.created'] });
};

/** Fans `entry` out to the subscription `webhookId` alone: the deliveries made. */
const fanOutTo = async (webhookId: string, entry: Awaited<ReturnType<typeof recordEvent>>) => {
  const { sent, queue } = recordingQueue(clock);
  const fanOut = createFanOut({
    clock,
    logger: quietLogger,
    deliveries: store,
    webhooks: { listForOrg: async (orgId) => (await service.deps.webhooks.listForOrg(orgId)).filter((s) => s.id === webhookId) },
    organisations: service.deps.directory,
    ...storedAuditItems(service),
    queue,
  });
  const result = await fanOut({ Records: [auditInsertRecord(entry)] });
  expect(result.batchItemFailures).toEqual([]);
  return sent;
};

const seqOf = async (type: string, webhookId: string) => {
  const entry = (await auditEntries(service, org.orgId)).find((e: any) => e.type === type && e.data?.details?.webhook_id === webhookId);
  return entry?.seq;
};

it('sends nothing of an event that committed before the subscription did', async () => {
  let event: Awaited<ReturnType<typeof recordEvent>> | undefined;
  const subscription = await subscribe(async () => {
    clock.advance(5);
    event = await recordEvent();
  });
  expect(event!.seq).toBeLessThan((await seqOf('webhook.created', subscription.id))!);
  expect(await fanOutTo(subscription.id, event!)).toEqual([]);
});

it('sends an event that committed after the subscription, whatever time its instance read', async () => {
  const subscription = await subscribe();
  // Another instance whose clock is a second behind records the next event.
  clock.advance(-1000);
  const event = await recordEvent();
  clock.advance(1000);
  expect(event.seq).toBeGreaterThan((await seqOf('webhook.created', subscription.id))!);
  expect(await fanOutTo(subscription.id, event)).toHaveLength(1);
});
