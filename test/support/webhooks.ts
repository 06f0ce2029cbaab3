import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../lambdas/core/clock.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { DeliveryQueue, WebhookPoster, WebhookRequest } from '../../lambdas/core/ports.ts';
import type { WebhookTarget } from '../../lambdas/store/deliveries.ts';
import type { TestService } from './test-service.ts';

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
  const sent: Array<{ deliveryId: string; delaySeconds: number; at: number }> = [];
  const queue: DeliveryQueue = {
    send: async (deliveryId, delaySeconds) => void sent.push({ deliveryId, delaySeconds, at: clock.now().getTime() }),
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

/** A subscription written straight into the table, in lambdas/store/webhooks.ts's layout. */
export const putSubscription = async (service: TestService, orgId: string, overrides: Partial<WebhookTarget> = {}): Promise<WebhookTarget> => {
  const subscription: WebhookTarget = {
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
  await service.deps.db.send(
    new PutCommand({
      TableName: service.deps.tableName,
      Item: { pk: `ORG#${orgId}`, sk: `WEBHOOK#${subscription.id}`, kind: 'webhook', ...subscription },
    }),
  );
  return subscription;
};
