import type { DeliveryQueue, WebhookPoster } from '#core/ports.ts';
import { SqsDeliveryQueue } from '#adapters/sqs-delivery-queue.ts';
import { WebhookHttp } from '#adapters/webhook-http.ts';
import { DeliveryStore } from '#store/deliveries.ts';
import type { ItemKey } from '#store/keys.ts';
import { DynamoWebhooks } from '#store/webhooks.ts';
import type { AppDeps } from '../app-deps.ts';
import { wiring, type DeployedAdapters } from '../wiring.ts';

/** What the webhook workers need beyond the app's dependencies. */
export interface WebhookDeps {
  clock: AppDeps['clock'];
  logger: AppDeps['logger'];
  deliveries: DeliveryStore;
  webhooks: Pick<DynamoWebhooks, 'listForOrg'>;
  /** Whose plan the fan-out asks before it sends an organisation's events. */
  organisations: Pick<AppDeps['directory'], 'getOrganisation'>;
  queue: DeliveryQueue;
  /** The audit entries the stream names by their keys (the fan-out's). */
  auditItems: { get(key: ItemKey): Promise<Record<string, unknown> | null> };
  http: WebhookPoster;
  /** Opens the signing secrets for the delivery worker (KMS deployed, the key file locally). */
  sealer: AppDeps['sealer'];
  /** Batches the reads a delivery batch starts together (`db` is its client). */
  readBatching?: AppDeps['readBatching'];
}

/** Builds them on top of app deps; the local runtime passes its own queue and loopback setting. */
export const createWebhookDeps = (deps: AppDeps, options: { queue: DeliveryQueue; allowLoopback?: boolean; http?: WebhookPoster }): WebhookDeps => {
  const deliveries = new DeliveryStore(deps.db, deps.tableName, deps.audit);
  return {
    clock: deps.clock,
    logger: deps.logger,
    deliveries,
    webhooks: new DynamoWebhooks(deps.db, deps.tableName, deps.audit),
    organisations: deps.directory,
    queue: options.queue,
    auditItems: { get: (key) => deliveries.storedItem(key) },
    http: options.http ?? new WebhookHttp({ allowLoopback: options.allowLoopback === true }),
    sealer: deps.sealer,
    readBatching: deps.readBatching,
  };
};

let deployed: WebhookDeps | undefined;
/**
 * The deployed world: the lanes' SQS queues from DELIVERY_QUEUE_URL and SLOW_DELIVERY_QUEUE_URL;
 * loopback receivers are never allowed. `adapters`: the services the worker calls besides
 * DynamoDB and SQS (the delivery worker's KMS sealer, which opens the signing secrets).
 */
export const webhookWiring = (adapters: DeployedAdapters = {}): WebhookDeps => {
  if (deployed) return deployed;
  const fast = process.env.DELIVERY_QUEUE_URL;
  const slow = process.env.SLOW_DELIVERY_QUEUE_URL;
  if (!fast || !slow) throw new Error('DELIVERY_QUEUE_URL and SLOW_DELIVERY_QUEUE_URL must be set');
  return (deployed = createWebhookDeps(wiring(adapters), { queue: new SqsDeliveryQueue({ fast, slow }), allowLoopback: false }));
};
