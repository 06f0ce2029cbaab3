import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import type { DeliveryRoute } from '../../lambdas/core/delivery-lanes.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { DeliveryQueue, WebhookPoster, WebhookRequest } from '../../lambdas/core/ports.ts';
import { webhookSecretContext } from '../../lambdas/core/webhooks.ts';
import { DeliveryStore, type WebhookTarget } from '../../lambdas/store/deliveries.ts';
import { createHandler as createFanOut, type FanOutDeps } from '../../lambdas/workers/fan-out.ts';
import { auditInsertRecord } from '../../lambdas/workers/stream-record.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';

/** The webhook workers' store over the test service's table. */
export const deliveryStoreOf = (service: TestService) => new DeliveryStore(service.deps.db, service.deps.tableName, service.deps.audit);

/** What the webhook workers' tests run against: a test service, one organisation in it, and the delivery store over its table. */
export const startDeliveryTestbed = async (options: Parameters<typeof startTestService>[0] = {}) => {
  const service = await startTestService(options);
  return { service, org: await service.createOrganisation(), store: deliveryStoreOf(service) };
};

/** The fan-out's reads of the entries its records name, from the test service's table (with its reads batched, as deployed). */
export const storedAuditItems = (service: TestService): Pick<FanOutDeps, 'auditItems' | 'readBatching'> => {
  const store = deliveryStoreOf(service);
  return { auditItems: { get: (key) => store.storedItem(key) }, readBatching: service.deps.readBatching };
};

/** For the workers under test: they log nothing. */
export const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** A clock the test moves; it starts at the real time. */
export const movableClock = () => {
  let now = Date.now();
  return {
    now: () => new Date(now),
    set: (at: number) => {
      now = at;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
};

/** Records what was enqueued, with the clock time of the send. */
export const recordingQueue = (clock: Clock) => {
  const sent: Array<{ deliveryId: string; delaySeconds: number; at: number; route?: DeliveryRoute }> = [];
  const queue: DeliveryQueue = {
    send: async (deliveryId, delaySeconds, route) => void sent.push({ deliveryId, delaySeconds, at: clock.now().getTime(), ...(route ? { route } : {}) }),
  };
  return { sent, queue };
};

/** Answers each POST with the next status of `statuses` (the last one repeats), noting the call and its clock time. */
export const scriptedHttp = (clock: Clock, statuses: Array<number | Error>) => {
  const calls: Array<WebhookRequest & { at: number }> = [];
  const http: WebhookPoster = {
    post: async (request) => {
      calls.push({ ...request, at: clock.now().getTime() });
      const next = statuses[Math.min(calls.length - 1, statuses.length - 1)]!;
      if (next instanceof Error) throw next;
      return { status: next };
    },
  };
  return { calls, http };
};

/** A subscription as a test knows it: its signing secrets in plain text (the table holds them sealed). */
export type TestSubscription = Omit<WebhookTarget, 'secrets'> & { secrets: Array<{ secret: string; expiresAt: string | null }> };

/**
 * A subscription written straight into the table, in lambdas/store/webhooks.ts's layout, its
 * secrets sealed with the service's sealer as POST /webhooks seals them.
 */
export const putSubscription = async (service: TestService, orgId: string, overrides: Partial<TestSubscription> = {}): Promise<TestSubscription> => {
  const subscription: TestSubscription = {
    id: newId(),
    orgId,
    url: 'https://hooks.example.com/handoff',
    events: ['request.created', 'request.revoked'],
    isActive: true,
    clientId: null,
    failingSince: null,
    lastDeliveredAt: null,
    secrets: [{ secret: `whsec_${Buffer.from(newId()).toString('base64')}`, expiresAt: null }],
    ...overrides,
  };
  const context = webhookSecretContext(orgId, subscription.id);
  const secrets = await Promise.all(subscription.secrets.map(async ({ secret, expiresAt }) => ({ sealed: await service.deps.sealer.seal(secret, context), expiresAt })));
  await service.deps.db.send(
    new PutCommand({
      TableName: service.deps.tableName,
      Item: { pk: `ORG#${orgId}`, sk: `WEBHOOK#${subscription.id}`, kind: 'webhook', ...subscription, secrets },
    }),
  );
  return subscription;
};

/** A `request.created` of the organisation's default client appended to its audit chain (no request behind it). */
export const recordTestEvent = (service: TestService, org: Pick<TestOrganisation, 'orgId' | 'defaultClientId'>) =>
  service.deps.audit.record({
    orgId: org.orgId,
    type: 'request.created',
    actor: { type: 'api', label: 'Helpdesk' },
    clientId: org.defaultClientId,
    requestId: null,
    data: { details: { note: 'test' }, actor: { type: 'api', label: 'Helpdesk' } },
  });

/**
 * A `request.created` of the organisation's default client appended to its audit chain and fanned
 * out (as its stream record) to `subscription` alone: the entry and the one delivery's id.
 */
export const fanOutEvent = async (
  service: TestService,
  org: Pick<TestOrganisation, 'orgId' | 'defaultClientId'>,
  subscription: Pick<WebhookTarget, 'id'>,
  deps: { clock: Clock; deliveries: DeliveryStore; queue: DeliveryQueue },
) => {
  const entry = await recordTestEvent(service, org);
  const sent: string[] = [];
  const fanOut = createFanOut({
    clock: deps.clock,
    logger: quietLogger,
    deliveries: deps.deliveries,
    webhooks: { listForOrg: async (orgId) => (await service.deps.webhooks.listForOrg(orgId)).filter((s) => s.id === subscription.id) },
    organisations: service.deps.directory,
    ...storedAuditItems(service),
    queue: {
      send: async (id, delay, route) => {
        sent.push(id);
        await deps.queue.send(id, delay, route);
      },
    },
  });
  const result = await fanOut({ Records: [auditInsertRecord(entry)] });
  expect(result.batchItemFailures).toEqual([]);
  expect(sent).toHaveLength(1);
  return { deliveryId: sent[0]!, entry };
};
