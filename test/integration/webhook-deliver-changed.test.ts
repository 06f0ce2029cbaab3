/**
 * A subscription deleted or its secret rotated while a delivery's attempt is being made: the
 * attempt follows the change once it has answered. A delete that answered before the POST leaves
 * nothing sent (the delivery cancelled); a rotation that answered before it has the POST signed
 * with the secret it showed.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { rotatedSecrets, sealedWebhookSecret } from '../../lambdas/core/webhooks.ts';
import type { DeliveryStore } from '../../lambdas/store/deliveries.ts';
import { deliverOne, type DeliverDeps } from '../../lambdas/workers/deliver.ts';
import { fanOutEvent, movableClock, putSubscription, quietLogger, recordingQueue, scriptedHttp, startDeliveryTestbed } from '../support/webhooks.ts';
import { auditEntries } from '../support/shapes.ts';
import type { TestOrganisation, TestService } from '../support/test-service.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let store: DeliveryStore;

beforeAll(async () => ({ service, org, store } = await startDeliveryTestbed({ clock })));
afterAll(() => service?.stop());

/** The store, but the first read of the subscription is followed by `meanwhile` (which commits and answers). */
const storeWith = (meanwhile: () => Promise<unknown>) => {
  let first = true;
  return Object.create(store, {
    subscription: {
      value: async (orgId: string, webhookId: string) => {
        const read = await store.subscription(orgId, webhookId);
        if (first) {
          first = false;
          await meanwhile();
        }
        return read;
      },
    },
  }) as DeliveryStore;
};

it('sends nothing to a subscription whose delete answered while the attempt was being made', async () => {
  clock.set(Date.now());
  const subscription = await putSubscription(service, org.orgId);
  const { queue } = recordingQueue(clock);
  const { deliveryId } = await fanOutEvent(service, org, subscription, { clock, deliveries: store, queue });
  const { calls, http } = scriptedHttp(clock, [204]);
  const deleted = storeWith(async () => service.deps.webhooks.delete((await service.deps.webhooks.get(org.orgId, subscription.id))!, OPERATOR_ACTOR));
  const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: deleted, queue, http, sealer: service.deps.sealer };

  expect(await deliverOne(deps, deliveryId)).toBe('cancelled');
  expect(calls).toHaveLength(0);
  expect(await store.get(deliveryId)).toMatchObject({ status: 'cancelled' });
  expect((await auditEntries(service, org.orgId)).at(-1)!.type).toBe('webhook.deleted');
});

it('signs with the new secret a rotation without overlap showed while the attempt was being made', async () => {
  clock.set(Date.now());
  const subscription = await putSubscription(service, org.orgId);
  const { queue } = recordingQueue(clock);
  const { deliveryId } = await fanOutEvent(service, org, subscription, { clock, deliveries: store, queue });
  const { calls, http } = scriptedHttp(clock, [204]);
  const shown = `whsec_${Buffer.from('the rotated secret, 32 bytes long').toString('base64')}`;
  const rotate = async () => {
    const before = (await service.deps.webhooks.get(org.orgId, subscription.id))!;
    const fresh = await sealedWebhookSecret(service.deps.sealer, org.orgId, subscription.id, shown);
    const { secrets } = rotatedSecrets(before.secrets, fresh, clock.now(), 0);
    await service.deps.webhooks.rotateSecret(before, secrets, null, OPERATOR_ACTOR);
  };
  const deps: DeliverDeps = { clock, logger: quietLogger, deliveries: storeWith(rotate), queue, http, sealer: service.deps.sealer };

  expect(await deliverOne(deps, deliveryId)).toBe('delivered');
  expect(calls).toHaveLength(1);
  const [call] = calls;
  expect(() => new Webhook(shown).verify(call!.body, call!.headers)).not.toThrow();
  expect(() => new Webhook(subscription.secrets[0]!.secret).verify(call!.body, call!.headers)).toThrow();
  expect(await store.get(deliveryId)).toMatchObject({ status: 'delivered', attempts: 1 });
});
