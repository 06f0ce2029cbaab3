import { DynamoApiKeys } from '#store/api-keys.ts';
import { LogLineApiReadLog } from '#adapters/api-read-lines.ts';
import { DynamoCertificateSource } from '#store/certificate-source.ts';
import { DynamoEventFeed } from '#store/event-feed.ts';
import { DynamoWebhooks } from '#store/webhooks.ts';
import { DynamoShares } from '#store/shares.ts';
import { DynamoDueRequests } from '#store/due-index.ts';
import type { AppDeps } from './app-deps.ts';

/**
 * The repositories only some functions read, added by those functions to the wired ones (the
 * local runtime adds them all): every other function's bundle leaves them out.
 */

/** API keys by their hash: the /v1 functions, which authenticate with them (api-handler.ts). */
export const withApiKeyStore = <Deps extends AppDeps>(deps: Deps): Deps & { apiKeys: DynamoApiKeys } => ({
  ...deps,
  apiKeys: deps.apiKeys ?? new DynamoApiKeys(deps.db, deps.tableName),
});

/**
 * Where reads through API keys leave their records (core/api-reads.ts): the /v1 functions
 * (api-handler.ts). Deployed, a log line the recorder stores; the local runtime stores them itself.
 */
export const withApiReadLog = <Deps extends AppDeps>(deps: Deps): Deps & { apiReads: NonNullable<AppDeps['apiReads']> } => ({
  ...deps,
  apiReads: deps.apiReads ?? new LogLineApiReadLog(),
});

/** Webhook subscriptions: the webhook routes and workers. */
export const withWebhookStore = <Deps extends AppDeps>(deps: Deps): Deps & { webhooks: DynamoWebhooks } => ({
  ...deps,
  webhooks: deps.webhooks ?? new DynamoWebhooks(deps.db, deps.tableName, deps.audit),
});

/** The requests' due index: the sweep (and the local runtime). */
export const withDueRequests = <Deps extends AppDeps>(deps: Deps): Deps & { dueRequests: DynamoDueRequests } => ({
  ...deps,
  dueRequests: deps.dueRequests ?? new DynamoDueRequests(deps.db, deps.tableName),
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

export type WithShares<Deps extends AppDeps = AppDeps> = Deps & { shares: DynamoShares };

/**
 * The one-time shares: their routes, the certificates, the expiry workers, and whatever applies a
 * ticket's status (a closed ticket ends the shares that quote it too).
 */
export const withShareStore = <Deps extends AppDeps>(deps: Deps): WithShares<Deps> => ({
  ...deps,
  shares: deps.shares ?? new DynamoShares(deps.db, deps.tableName, deps.audit),
});
