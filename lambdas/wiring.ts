import type { Logger } from '@aws-lambda-powertools/logger';
import { systemClock, type Clock } from '#core/clock.ts';
import type { ExpiryScheduler, Notifier, PurgeScheduler } from '#core/ports.ts';
import type { SecretSealer } from '#core/sealing.ts';
import type { CodeKey } from '#core/code-key.ts';
import type { PublicUrls } from '#core/request-view.ts';
import { createDocumentClient, type Documents } from '#store/dynamo.ts';
import { CoalescingDocuments } from '#store/coalesced-reads.ts';
import { createRepositories } from '#store/repositories.ts';
import { rateTableNameOf } from '#store/table.ts';
import type { ScheduleKind } from '#adapters/eventbridge-scheduler.ts';
import type { SigningKeyCustody } from '#core/signing-keys.ts';
import type { TableBackups } from '#core/custody/backups.ts';
import type { AppDeps } from './app-deps.ts';
import { createLogger } from './logger.ts';
import { scheduleFailedMessage } from './failure-logs.ts';
import type { TicketCheckQueue } from '#core/ticket-check.ts';
import type { HelpdeskConnector } from '#core/helpdesk.ts';
import type { TicketReplier } from '#core/use-cases/ticket-reply.ts';
import type { ApiReadLog } from '#core/api-reads.ts';

export interface WiringOptions {
  tableName: string;
  /** Where rate windows are counted (lambdas/store/table.ts); default: rateTableNameOf(tableName), the local layout. */
  rateTableName?: string;
  urls: PublicUrls;
  notifier: Notifier;
  /** Default: none (requests then expire through the sweep alone). */
  scheduler?: ExpiryScheduler;
  /** Default: none (grace-period purges then happen through the sweep alone). */
  purgeScheduler?: PurgeScheduler;
  /** Seals the integration secrets the service must read back (a key file locally, KMS deployed); default: none, sealing fails. */
  sealer?: SecretSealer;
  /** Hashes the six-digit codes (a key file locally, a KMS HMAC key deployed); default: none, hashing fails. */
  codeKey?: CodeKey;
  db?: Documents;
  clock?: Clock;
  logger?: Logger;
  /** Keeps the certificate signing keys' private halves (key files locally); default: the stack's KMS keys (certificate-signing.ts). */
  signingCustody?: SigningKeyCustody;
  /** What the table's backups keep (the local runtime: none); default: the stack's setting, read by the certificate function (table-backups.ts). */
  tableBackups?: TableBackups;
  /** Local and test use only: let webhook subscriptions name a loopback receiver (and a helpdesk be http://127.0.0.1). Default false. */
  allowLoopbackWebhooks?: boolean;
  /** Where ticket checks are queued; default: none (deployed, helpdesk-wiring.ts adds the queue to the functions that use it). */
  ticketChecks?: TicketCheckQueue;
  /** The helpdesk adapters; default: none (deployed, helpdesk-wiring.ts adds them to the functions that call a helpdesk). */
  helpdesks?: HelpdeskConnector;
  /** Who posts links in tickets; default: none (deployed, helpdesk-wiring.ts adds it to the creating functions). */
  ticketReplies?: TicketReplier;
  /** Where reads through API keys leave their records; default: none (deployed, store-wiring.ts adds log lines to the /v1 functions). */
  apiReads?: ApiReadLog;
  /** The sign-in request's least answer time (AppDeps.signInAnswerMs). */
  signInAnswerMs?: number;
}

/** Builds the dependencies; the local runtime and tests call this with their own stand-ins. */
export const createAppDeps = (options: WiringOptions): AppDeps => {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger();
  const db = new CoalescingDocuments(options.db ?? createDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT }));
  const rateTableName = options.rateTableName ?? rateTableNameOf(options.tableName);
  const repositories = createRepositories(db, options.tableName, rateTableName, clock, (error) =>
    logger.warn('rate limiter throttled; letting the call through', { errorName: (error as Error).name }),
  );
  const scheduler = reportingFailures('expire', options.scheduler ?? NO_SCHEDULER, logger);
  const purgeScheduler = reportingFailures('purge', options.purgeScheduler ?? NO_SCHEDULER, logger);
  const webhookPolicy = { allowLoopback: options.allowLoopbackWebhooks ?? false };
  const sealer = options.sealer ?? NO_SEALER;
  return {
    clock,
    logger,
    db,
    readBatching: db,
    tableName: options.tableName,
    urls: options.urls,
    notifier: options.notifier,
    scheduler,
    purgeScheduler,
    sealer,
    helpdesks: options.helpdesks,
    ticketChecks: options.ticketChecks,
    ticketReplies: options.ticketReplies,
    apiReads: options.apiReads,
    codeKey: options.codeKey ?? NO_CODE_KEY,
    webhookPolicy,
    signingCustody: options.signingCustody,
    tableBackups: options.tableBackups,
    signInAnswerMs: options.signInAnswerMs,
    ...repositories,
  };
};

/** For callers that never touch a sealed secret: any use is a wiring mistake, so it fails loudly. */
const NO_SEALER: SecretSealer = {
  seal: async () => {
    throw new Error('no secret sealer is configured');
  },
  open: async () => {
    throw new Error('no secret sealer is configured');
  },
};

/** For callers that never hash a code: any use is a wiring mistake, so it fails loudly. */
const NO_CODE_KEY: CodeKey = {
  mac: async () => {
    throw new Error('no code key is configured');
  },
};

/** Arms nothing; the sweep still expires every due request. */
export const NO_SCHEDULER: ExpiryScheduler = { schedule: async () => undefined, cancel: async () => undefined };

/**
 * Logs a failed schedule or cancel (ids and the error's name only) and passes the error on; the
 * use cases tolerate it, as the sweep covers a missing schedule.
 */
const reportingFailures = (kind: ScheduleKind, inner: ExpiryScheduler, logger: Logger): ExpiryScheduler => {
  const reported = async (operation: 'schedule' | 'cancel', requestId: string, call: () => Promise<void>) => {
    try {
      await call();
    } catch (error) {
      logger.warn(scheduleFailedMessage(kind), { operation, requestId, errorName: (error as Error)?.name });
      throw error;
    }
  };
  return {
    schedule: (requestId, atIso) => reported('schedule', requestId, () => inner.schedule(requestId, atIso)),
    cancel: (requestId) => reported('cancel', requestId, () => inner.cancel(requestId)),
  };
};

export const required = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

/**
 * The AWS services a deployed function calls besides DynamoDB, as the stack grants them
 * (lib/api-functions.ts and the workers' constructs). Each comes from a module of deployed/ that
 * imports that one SDK client, and only the handlers that call a service import its module, so
 * no bundle carries a client its function never calls (an SDK client is most of a cold start's
 * import time). A service a function leaves out fails when called, as its missing right would.
 */
export interface DeployedAdapters {
  /** SES: the functions whose routes send email (deployed/ses-email.ts). */
  email?: Pick<Notifier, 'sendEmail'>;
  /** SNS: the functions whose routes send SMS (deployed/sns-sms.ts). */
  sms?: Pick<Notifier, 'sendSms'>;
  /** EventBridge Scheduler, expiry and purge schedules (deployed/eventbridge-schedules.ts). */
  scheduler?: ExpiryScheduler;
  purgeScheduler?: PurgeScheduler;
  /** KMS envelope sealing of integration, helpdesk and webhook secrets (deployed/kms-sealing.ts). */
  sealer?: SecretSealer;
  /** The KMS HMAC key of the six-digit codes (deployed/kms-code-key.ts). */
  codeKey?: CodeKey;
}

/** A service this function was not wired with (and has no right to): its use fails, and the caller reports it as it would a refusal. */
export const notWired = (what: string) => async () => {
  throw new Error(`this function does not ${what}`);
};

const UNWIRED_SCHEDULER: ExpiryScheduler = { schedule: notWired('arm schedules'), cancel: notWired('cancel schedules') };

let deployed: AppDeps | undefined;

/** The deployed world, from the function's environment and the services its handler names, built once per cold start. */
export const wiring = (adapters: DeployedAdapters = {}): AppDeps =>
  (deployed ??= createAppDeps({
    tableName: required('TABLE_NAME'),
    rateTableName: required('RATE_TABLE_NAME'),
    urls: { baseUrl: required('BASE_URL'), appUrl: required('APP_URL') },
    notifier: {
      sendEmail: adapters.email ? (message) => adapters.email!.sendEmail(message) : notWired('send email'),
      sendSms: adapters.sms ? (message) => adapters.sms!.sendSms(message) : notWired('send SMS'),
    },
    scheduler: adapters.scheduler ?? UNWIRED_SCHEDULER,
    purgeScheduler: adapters.purgeScheduler ?? UNWIRED_SCHEDULER,
    sealer: adapters.sealer,
    codeKey: adapters.codeKey,
  }));
