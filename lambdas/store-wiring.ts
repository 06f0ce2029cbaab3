import { DynamoCertificateSource } from '#store/certificate-source.ts';
import { DynamoEventFeed } from '#store/event-feed.ts';
import { DynamoWebhooks } from '#store/webhooks.ts';
import type { AppDeps } from './app-deps.ts';

/**
 * The repositories only some functions read, added by those functions to the wired ones (the
 * local runtime adds all three): every other function's bundle leaves them out.
 */

/** Webhook subscriptions: the webhook routes and workers. */
export const withWebhookStore = <Deps extends AppDeps>(deps: Deps): Deps & { webhooks: DynamoWebhooks } => ({
  ...deps,
  webhooks: deps.webhooks ?? new DynamoWebhooks(deps.db, deps.tableName, deps.audit),
});

/** The audit chain as events: GET /v1/events. */
export const withEventFeed = <Deps extends AppDeps>(deps: Deps): Deps & { events: DynamoEventFeed } => ({
  ...deps,
  events: deps.events ?? new DynamoEventFeed(deps.db, deps.tableName),
});

/** The audit chain as custody certificates read it: the certificate routes. */
export const withCertificateSource = <Deps extends AppDeps>(deps: Deps): Deps & { certificates: DynamoCertificateSource } => ({
  ...deps,
  certificates: deps.certificates ?? new DynamoCertificateSource(deps.db, deps.tableName),
});
