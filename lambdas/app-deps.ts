import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clock } from '#core/clock.ts';
import type { SecretSealer } from '#core/sealing.ts';
import type { CodeKey } from '#core/code-key.ts';
import type { ExpiryScheduler, Notifier, PurgeScheduler } from '#core/ports.ts';
import type { PublicUrls } from '#core/request-view.ts';
import type { DynamoApiKeys } from '#store/api-keys.ts';
import type { AuditLog } from '#store/audit-log.ts';
import type { DynamoDirectory } from '#store/directory.ts';
import type { Documents } from '#store/dynamo.ts';
import type { DynamoIdempotency } from '#store/idempotency.ts';
import type { DynamoRateLimiter } from '#store/rate-limiter.ts';
import type { DynamoRequests } from '#store/requests.ts';
import type { DynamoEventFeed } from '#store/event-feed.ts';
import type { DynamoWebhooks } from '#store/webhooks.ts';
import type { DynamoIntegrations } from '#store/integrations.ts';
import type { WebhookUrlOptions } from '#core/webhook-url.ts';
import type { CertificateSigner } from '#core/use-cases/certificates/certificate-signer.ts';
import type { DynamoCertificateSource } from '#store/certificate-source.ts';
import type { DynamoShares } from '#store/shares.ts';

/** Everything a handler may need, built once per process (wiring.ts) or by a test. */
export interface AppDeps {
  clock: Clock;
  logger: Logger;
  db: Documents;
  tableName: string;
  urls: PublicUrls;
  directory: DynamoDirectory;
  apiKeys: DynamoApiKeys;
  audit: AuditLog;
  requests: DynamoRequests;
  idempotency: DynamoIdempotency;
  rateLimiter: DynamoRateLimiter;
  notifier: Notifier;
  /** Arms and cancels each request's expiry trigger (EventBridge Scheduler deployed, a timer locally). */
  scheduler: ExpiryScheduler;
  /** Arms and cancels each request's grace-period purge after its ticket closed (the same two worlds). */
  purgeScheduler: PurgeScheduler;
  /** GET /events: the audit chain's events. */
  events: DynamoEventFeed;
  /** Seals integration secrets the service reads back (a key file locally, KMS deployed). */
  sealer: SecretSealer;
  /** Hashes the six-digit codes (a key file locally, a KMS HMAC key deployed). */
  codeKey: CodeKey;
  /** Webhook subscriptions. */
  webhooks: DynamoWebhooks;
  /** Ticketing integrations, their inbound URL look-ups and activity logs. */
  integrations: DynamoIntegrations;
  /** Outbound one-time shares made in the member app. */
  shares: DynamoShares;
  /** The audit chain as custody certificates read it. */
  certificates: DynamoCertificateSource;
  /** Signs certificates and publishes the keys (KMS deployed, key files locally). */
  signer: CertificateSigner;
  /**
   * Which webhook URLs a subscription may name. `allowLoopback` is for local and test use only
   * (a receiver on this machine); the deployed wiring leaves it false.
   */
  webhookPolicy: Required<WebhookUrlOptions>;
}
