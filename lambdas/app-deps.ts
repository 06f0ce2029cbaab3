import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clock } from '#core/clock.ts';
import type { SecretSealer } from '#core/sealing.ts';
import type { CodeKey } from '#core/code-key.ts';
import type { ExpiryScheduler, Notifier, PurgeScheduler } from '#core/ports.ts';
import type { PublicUrls } from '#core/request-view.ts';
import type { DynamoApiKeys } from '#store/api-keys.ts';
import type { AuditLog } from '#store/audit-log.ts';
import type { ApiReadLog } from '#core/api-reads.ts';
import type { DynamoDirectory } from '#store/directory.ts';
import type { Documents } from '#store/dynamo.ts';
import type { ReadBatching } from '#store/coalesced-reads.ts';
import type { DynamoIdempotency } from '#store/idempotency.ts';
import type { IdempotentCommits } from '#store/idempotent-commit.ts';
import type { DynamoRateLimiter } from '#store/rate-limiter.ts';
import type { DynamoRequests } from '#store/requests.ts';
import type { DynamoEventFeed } from '#store/event-feed.ts';
import type { DynamoWebhooks } from '#store/webhooks.ts';
import type { DynamoIntegrations } from '#store/integrations.ts';
import type { WebhookUrlOptions } from '#core/webhook-url.ts';
import type { SigningKeyCustody } from '#core/signing-keys.ts';
import type { DynamoCertificateSource } from '#store/certificate-source.ts';
import type { DynamoShares } from '#store/shares.ts';
import type { DynamoDueRequests } from '#store/due-index.ts';
import type { TableBackups } from '#core/custody/backups.ts';
import type { HelpdeskConnector } from '#core/helpdesk.ts';
import type { TicketCheckQueue } from '#core/ticket-check.ts';
import type { TicketReplier } from '#core/use-cases/ticket-reply.ts';

/** Everything a handler may need, built once per process (wiring.ts) or by a test. */
export interface AppDeps {
  clock: Clock;
  logger: Logger;
  db: Documents;
  /** Batches the reads an invocation starts together (the /v1 functions run in its scope; `db` is its client). */
  readBatching?: ReadBatching;
  tableName: string;
  urls: PublicUrls;
  directory: DynamoDirectory;
  /** API keys by their hash (store-wiring.ts withApiKeyStore adds it where keys authenticate). */
  apiKeys?: DynamoApiKeys;
  audit: AuditLog;
  /** Where reads through API keys leave their records, beside the audit chain (store-wiring.ts withApiReadLog adds it to the /v1 functions). */
  apiReads?: ApiReadLog;
  requests: DynamoRequests;
  idempotency: DynamoIdempotency;
  /** Stores a creating call's replay in its change's transaction (the /v1 functions run in its scope). */
  commits?: IdempotentCommits;
  rateLimiter: DynamoRateLimiter;
  notifier: Notifier;
  /** Arms and cancels each request's expiry trigger (EventBridge Scheduler deployed, a timer locally). */
  scheduler: ExpiryScheduler;
  /** Arms and cancels each request's grace-period purge after its ticket closed (the same two worlds). */
  purgeScheduler: PurgeScheduler;
  /** GET /events: the audit chain's events (store-wiring.ts withEventFeed adds it where it is read). */
  events?: DynamoEventFeed;
  /** Seals integration secrets the service reads back (a key file locally, KMS deployed). */
  sealer: SecretSealer;
  /** Hashes the six-digit codes (a key file locally, a KMS HMAC key deployed). */
  codeKey: CodeKey;
  /** Webhook subscriptions. */
  webhooks?: DynamoWebhooks;
  /** Ticketing integrations, their inbound URL look-ups and activity logs. */
  integrations: DynamoIntegrations;
  /**
   * Each integration's helpdesk adapter, its credentials opened with `sealer`: locally always;
   * deployed, only in the functions that call a helpdesk (helpdesk-wiring.ts withHelpdesks).
   */
  helpdesks?: HelpdeskConnector;
  /**
   * Reads of linked tickets, run soon after a closing hint or a grace period's end (a timer
   * locally; deployed, SQS in the functions that ask, helpdesk-wiring.ts withTicketChecks).
   * Absent, a hint waits for the reconciliation.
   */
  ticketChecks?: TicketCheckQueue;
  /**
   * Posts a link in a ticket (`ticket_reply`): locally in process; deployed, by invoking the
   * ticket-check worker from the creating functions (helpdesk-wiring.ts withTicketReplies).
   */
  ticketReplies?: TicketReplier;
  /** Outbound one-time shares made in the member app: added where they are used (store-wiring.ts withShareStore). */
  shares?: DynamoShares;
  /** The requests' due index: the sweep's alone (store-wiring.ts withDueRequests). */
  dueRequests?: DynamoDueRequests;
  /** The audit chain as custody certificates read it. */
  certificates?: DynamoCertificateSource;
  /** Keeps the certificate signing keys' private halves (key files locally); absent deployed, where certificate-signing.ts uses KMS. */
  signingCustody?: SigningKeyCustody;
  /** What the table's backups keep, as certificates state it (none locally); absent deployed, where table-backups.ts reads the stack's setting. */
  tableBackups?: TableBackups;
  /**
   * Which webhook URLs a subscription may name. `allowLoopback` is for local and test use only
   * (a receiver on this machine); the deployed wiring leaves it false.
   */
  webhookPolicy: Required<WebhookUrlOptions>;
  /**
   * How long POST /app/api/sign-in takes at least, whether or not the email is a member's, so its
   * timing does not tell (http/app/sign-in.ts); default SIGN_IN_ANSWER_MS. Tests that sign in
   * often set 0; the one that measures it keeps it.
   */
  signInAnswerMs?: number;
}
