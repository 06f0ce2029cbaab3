import { join } from 'node:path';
import type { Server } from 'node:http';
import { systemClock, type Clock } from '#core/clock.ts';
import type { ExpiryScheduler, PurgeScheduler } from '#core/ports.ts';
import type { SecretSealer } from '#core/sealing.ts';
import type { CodeKey } from '#core/code-key.ts';
import type { SigningKeyCustody } from '#core/signing-keys.ts';
import { createHandler as createExpireWorker } from '#workers/expire.ts';
import { createHandler as createPurgeWorker } from '#workers/purge.ts';
import { createHandler as createSweepWorker } from '#workers/sweep.ts';
import { createHandler as createReconcileWorker, withHelpdeskLinks } from '#workers/reconcile.ts';
import { runTicketCheck } from '#core/use-cases/tickets/verify-ticket.ts';
import type { TicketCheck, TicketCheckQueue } from '#core/ticket-check.ts';
import { TimerTicketChecks } from './timer-ticket-checks.ts';
import { withHelpdesks } from '../helpdesk-wiring.ts';
import { withApiKeyStore, withCertificateSource, withDueRequests, withEventFeed, withShareStore, withWebhookStore } from '../store-wiring.ts';
import type { DynamoApiKeys } from '#store/api-keys.ts';
import type { DynamoCertificateSource } from '#store/certificate-source.ts';
import type { DynamoEventFeed } from '#store/event-feed.ts';
import type { DynamoWebhooks } from '#store/webhooks.ts';
import { replyWithinBudget } from '#workers/ticket-check.ts';
import type { TicketReplier, TicketReplyInput, TicketReplyResult } from '#core/use-cases/ticket-reply.ts';
import type { HelpdeskConnector } from '#core/helpdesk.ts';
import type { HelpdeskWaits } from '#core/helpdesk-waits.ts';
import type { AppDeps } from '../app-deps.ts';
import type { DynamoShares } from '../store/shares.ts';
import type { DynamoDueRequests } from '../store/due-index.ts';
import { AdminStore } from '#store/admin-store.ts';
import { DynamoApiReadStore } from '#store/api-read-log.ts';
import type { ApiRead } from '#core/api-reads.ts';
import { PendingApiReads } from './pending-api-reads.ts';
import { createDocumentClient, type DynamoConnection } from '#store/dynamo.ts';
import { createAppDeps } from '../wiring.ts';
import { startDynamoLocal, type RunningDynamo } from './dynamodb-local.ts';
import { ensureTable } from './table-bootstrap.ts';
import { createGateway, listen } from './gateway.ts';
import { OutboxNotifier } from './outbox-notifier.ts';
import { OUTBOX_PAGE_PATH, outboxPage } from './outbox-page.ts';
import { TimerScheduler } from './timer-scheduler.ts';
import { createHandler as createFanOut } from '#workers/fan-out.ts';
import { createHandler as createDeliver } from '#workers/deliver.ts';
import { createHandler as createDeliverySweep } from '#workers/delivery-sweep.ts';
import { createWebhookDeps, type WebhookDeps } from '#workers/webhook-wiring.ts';
import { StreamPoller } from './stream-poller.ts';
import { TableStreamCheckpoints } from './stream-checkpoints.ts';
import { TimerQueue } from './timer-queue.ts';
import { KeyFileSealer } from './key-file-sealer.ts';
import { KeyFileCodeKey } from './key-file-code-key.ts';
import { KeyFileSigningCustody } from './key-file-signing.ts';
import { signerOf } from '../certificate-signing.ts';
import { FunctionContext, type LocalTableAccessOptions } from './function-context.ts';
import type { TableAccessGuard } from '../access/table-access-guard.ts';

/** The key that seals integration secrets locally, beside the data it protects (DESIGN.md). */
export const SEALING_KEY_FILE = 'sealing.key';
/** The key the six-digit codes are hashed with locally (HMAC-SHA-256), beside the sealing key. */
export const CODE_HASH_KEY_FILE = 'code-hash.key';
/** The local certificate signing keys (one PEM file per key), beside the sealing key. */
export const SIGNING_KEYS_FOLDER = 'signing-keys';

export const LOCAL_TABLE_NAME = 'credential-handoff';

/**
 * DynamoDB Local keeps no point-in-time backups: a destruction here leaves no restorable copy in a
 * backup, and the certificates say so (0 days) rather than state the deployed stack's period.
 */
export const LOCAL_TABLE_BACKUPS = { pointInTimeRecoveryDays: 0 } as const;

export interface LocalServiceOptions {
  /** Where DynamoDB Local keeps its data, the outbox and demo private keys; omit for in-memory. */
  dataDir?: string;
  port?: number;
  host?: string;
  /** Reuse a running DynamoDB Local instead of starting one. */
  dynamoEndpoint?: string;
  /** The SDK client's per-attempt timeout and attempts (tests that inject faults keep them short). */
  dynamoClient?: Pick<DynamoConnection, 'requestTimeoutMs' | 'maxAttempts'>;
  tableName?: string;
  /** Where email and SMS are written; defaults to `<dataDir>/outbox`. */
  outboxDir?: string;
  /**
   * Serves the outbox as a page at /local/outbox (outbox-page.ts), so sign-in and subject links are
   * a click away in the browser. It shows sign-in links: `npm start` turns it on only while it
   * listens on loopback. Default off.
   */
  outboxPage?: boolean;
  clock?: Clock;
  announce?: (line: string) => void;
  /**
   * Expiry timers (default on): a timer per request that runs the expiry worker when it falls
   * due, and the sweep every minute. Off, requests expire only when a test runs the workers.
   */
  timers?: boolean;
  /**
   * The expiry scheduler the handlers use, instead of the timers (with `timers: false`, instead of
   * none at all); unless `timers` is false the sweep still runs every minute.
   */
  scheduler?: ExpiryScheduler;
  /** The purge scheduler the handlers use, instead of the purge timers (as `scheduler` for expiry). */
  purgeScheduler?: PurgeScheduler;
  /** Where the handlers queue ticket checks, instead of the check timers (which also run the reconciliation every minute). */
  ticketChecks?: TicketCheckQueue;
  /** Default: the key file `<dataDir>/sealing.key` (made at first start), or a key in memory without a data folder. */
  sealer?: SecretSealer;
  /** Default: the key file `<dataDir>/code-hash.key` (made at first start), or a key in memory without a data folder. */
  codeKey?: CodeKey;
  /** Default: the key files under `<dataDir>/signing-keys/` (the first made at start), or keys in memory without a data folder. */
  signingCustody?: SigningKeyCustody;
  /**
   * Outbound webhooks (default on): the stream poller reads the table's stream into the fan-out,
   * a timer queue feeds the delivery worker, and the delivery sweep runs every minute.
   */
  webhooks?: boolean;
  /**
   * Makes a new table with its stream, as deployed (default on). Only tests that never read the
   * stream turn it off (table-bootstrap.ts says why); webhooks need it.
   */
  tableStream?: boolean;
  /** Lets webhooks go to loopback receivers (plain http included): tests and `npm start` only. Default off. */
  allowLoopbackWebhooks?: boolean;
  /**
   * Holds each function to its table access declaration (lambdas/access/table-access.ts), as its
   * IAM policy does deployed: `npm start` and the tests turn it on. Default off.
   */
  tableAccess?: LocalTableAccessOptions;
  /** The sign-in request's least answer time (AppDeps.signInAnswerMs); default as deployed. */
  signInAnswerMs?: number;
}

export interface LocalService {
  baseUrl: string;
  appUrl: string;
  port: number;
  /** Locally every function has every store and may call a helpdesk (deployed, only those wired with store-wiring.ts and helpdesk-wiring.ts). */
  deps: AppDeps & { helpdesks: HelpdeskConnector; helpdeskWaits: HelpdeskWaits; webhooks: DynamoWebhooks; events: DynamoEventFeed; certificates: DynamoCertificateSource; apiKeys: DynamoApiKeys; shares: DynamoShares; dueRequests: DynamoDueRequests };
  admin: AdminStore;
  dynamoEndpoint: string;
  /** The process id of the DynamoDB Local this service started, or null when it joined one. */
  dynamoPid: number | null;
  server: Server;
  /** The webhook workers' dependencies, when webhooks are on. */
  webhooks: WebhookDeps | null;
  /** The table access guard, when `tableAccess` asked for one: its `denials` are every call it refused. */
  tableAccess: TableAccessGuard | null;
  /**
   * Resolves once every read record handed over so far is in the table: the records are stored
   * after the answers (pending-api-reads.ts), as the log subscription stores them deployed.
   */
  apiReadsSettled(): Promise<void>;
  /** Runs a ticket check as the ticket-check worker does (with its table rights), for a queue of the caller's own. */
  runTicketCheck(check: TicketCheck): Promise<unknown>;
  stop(): Promise<void>;
}

/** Makes the table with `db`, or without a timeout when the service's client has a short one: creating a table can take seconds. */
const bootstrapTable = async (endpoint: string, db: ReturnType<typeof createDocumentClient> | null, tableName: string, stream: boolean) => {
  const client = db ?? createDocumentClient({ endpoint });
  try {
    await ensureTable(client, tableName, { stream });
  } finally {
    if (!db) client.destroy();
  }
};

/**
 * The whole service on one machine: DynamoDB Local, the table, and the API served through the
 * same handlers via the route table. Email and SMS land in the outbox folder.
 */
export const startLocalService = async (options: LocalServiceOptions = {}): Promise<LocalService> => {
  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  if (options.tableStream === false && options.webhooks !== false) throw new Error('webhooks read the table stream: tableStream: false needs webhooks: false');
  let dynamo: RunningDynamo | null = null;
  let endpoint = options.dynamoEndpoint;
  if (!endpoint) {
    dynamo = await startDynamoLocal({ dataDir: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined });
    endpoint = dynamo.endpoint;
  }
  const db = createDocumentClient({ endpoint, ...options.dynamoClient });
  await bootstrapTable(endpoint, options.dynamoClient ? null : db, tableName, options.tableStream !== false);

  const clock = options.clock ?? systemClock;
  const outbox = options.outboxDir ?? join(options.dataDir ?? join(process.cwd(), '.data'), 'outbox');
  const host = options.host ?? '127.0.0.1';
  // The URLs depend on the port, which is known only once listening; they are filled in below.
  const urls = { baseUrl: '', appUrl: '' };
  // The timers call the same workers EventBridge Scheduler invokes deployed; they need the deps, which need the scheduler.
  let workers:
    | {
        expire: ReturnType<typeof createExpireWorker>;
        purge: ReturnType<typeof createPurgeWorker>;
        sweep: ReturnType<typeof createSweepWorker>;
        ticketCheck: (check: TicketCheck) => Promise<unknown>;
        ticketReply: (input: TicketReplyInput) => Promise<TicketReplyResult>;
        reconcile: ReturnType<typeof createReconcileWorker>;
        recordApiReads: (reads: ApiRead[]) => Promise<void>;
      }
    | undefined;
  const timers =
    options.timers === false
      ? null
      : new TimerScheduler({
          fire: (requestId) => workers!.expire({ requestId }),
          sweep: () => workers!.sweep(),
          now: () => clock.now().getTime(),
          onError: (error, requestId) => deps.logger.error('local expiry timer failed', { requestId, errorName: (error as Error)?.name }),
        });
  // Grace-period purges: a second kind of timer, as deployed a second kind of schedule; the expiry sweep covers both.
  const purgeTimers =
    options.timers === false
      ? null
      : new TimerScheduler({
          fire: (requestId) => workers!.purge({ requestId }),
          now: () => clock.now().getTime(),
          onError: (error, requestId) => deps.logger.error('local purge timer failed', { requestId, errorName: (error as Error)?.name }),
        });
  // Ticket checks and the reconciliation (every minute): the same two worlds as the other timers.
  const ticketChecks =
    options.timers === false
      ? null
      : new TimerTicketChecks({
          run: (check) => workers!.ticketCheck(check),
          reconcile: () => workers!.reconcile(),
          now: () => clock.now().getTime(),
          onError: (error) => deps.logger.error('local ticket check failed', { errorName: (error as Error)?.name }),
        });
  // Replies in tickets run as the helpdesk worker, as deployed (the creating function invokes it).
  const ticketReplies: TicketReplier = { postLink: (input) => workers!.ticketReply(input) };
  const sealer =
    options.sealer ?? (options.dataDir ? await KeyFileSealer.fromFile(join(options.dataDir, SEALING_KEY_FILE)) : KeyFileSealer.inMemory());
  const codeKey =
    options.codeKey ?? (options.dataDir ? await KeyFileCodeKey.fromFile(join(options.dataDir, CODE_HASH_KEY_FILE)) : KeyFileCodeKey.inMemory());
  // Read records are stored by the recorder worker after the answers, as deployed (workers/api-read-recorder.ts).
  const apiReads = new PendingApiReads(
    (reads) => workers!.recordApiReads(reads),
    (error) => deps.logger.error('local read records not stored yet', { errorName: (error as Error)?.name }),
  );
  const deps = withDueRequests(withShareStore(withApiKeyStore(withWebhookStore(withEventFeed(withCertificateSource(withHelpdesks(createAppDeps({
    tableName,
    urls,
    // Loopback receivers are for the local runtime and tests only, and only when asked for.
    allowLoopbackWebhooks: options.allowLoopbackWebhooks === true,
    notifier: new OutboxNotifier(outbox, options.announce),
    scheduler: options.scheduler ?? timers ?? undefined,
    purgeScheduler: options.purgeScheduler ?? purgeTimers ?? undefined,
    ticketChecks: options.ticketChecks ?? ticketChecks ?? undefined,
    ticketReplies,
    sealer,
    codeKey,
    signingCustody:
      options.signingCustody ??
      (options.dataDir ? KeyFileSigningCustody.inFolder(join(options.dataDir, SIGNING_KEYS_FOLDER)) : KeyFileSigningCustody.inMemory()),
    tableBackups: LOCAL_TABLE_BACKUPS,
    db,
    clock,
    apiReads,
    signInAnswerMs: options.signInAnswerMs,
  }))))))));
  // The first signing key is made at first start, so the JWKS is published before any certificate.
  if (options.dataDir) await signerOf(deps).currentKey();
  const functions = FunctionContext.create(db, deps.logger, options.tableAccess);
  const apiReadStore = new DynamoApiReadStore(deps.db, tableName);
  workers = {
    expire: functions.worker('expire', createExpireWorker(deps)),
    purge: functions.worker('purge', createPurgeWorker(deps)),
    sweep: functions.worker('sweep', createSweepWorker(deps)),
    ticketCheck: functions.worker('ticketCheck', (check: TicketCheck) => runTicketCheck(deps, check)),
    reconcile: functions.worker('reconcile', createReconcileWorker(withHelpdeskLinks(deps))),
    ticketReply: functions.worker('ticketCheck', (input: TicketReplyInput) => replyWithinBudget(deps, input)),
    recordApiReads: functions.worker('recordApiReads', (reads: ApiRead[]) => apiReadStore.storeAll(reads)),
  };
  const server = createGateway(deps, {
    aroundInvoke: (route, invoke) => functions.route(route, invoke),
    localPages: options.outboxPage ? new Map([[OUTBOX_PAGE_PATH, () => outboxPage(outbox)]]) : undefined,
  });
  const port = await listen(server, options.port ?? 0, host);
  const shownHost = host === '127.0.0.1' || host === '::1' ? 'localhost' : host;
  urls.appUrl = `http://${shownHost}:${port}`;
  urls.baseUrl = `${urls.appUrl}/v1`;

  const admin = new AdminStore(db, tableName, deps.audit, clock);
  timers?.start();
  ticketChecks?.start();
  const webhooks = options.webhooks === false ? null : await startWebhooks(deps, endpoint, options.allowLoopbackWebhooks === true, functions);
  return {
    baseUrl: urls.baseUrl,
    appUrl: urls.appUrl,
    port,
    deps,
    admin,
    dynamoEndpoint: endpoint,
    dynamoPid: dynamo?.process.pid ?? null,
    server,
    webhooks: webhooks?.deps ?? null,
    tableAccess: functions.guard,
    apiReadsSettled: () => apiReads.settled(),
    runTicketCheck: (check) => workers.ticketCheck(check),
    stop: async () => {
      await timers?.stop();
      await purgeTimers?.stop();
      await ticketChecks?.stop();
      await webhooks?.stop();
      server.closeAllConnections();
      await new Promise((done) => server.close(() => done(undefined)));
      await apiReads.settled();
      db.destroy();
      await dynamo?.stop();
    },
  };
};

/**
 * The local webhook pipeline: the real stream, a timer queue, the same workers as deployed. What
 * a stopped (or killed) process left undone is picked up at start: the poller resumes from its
 * checkpoints, and every pending delivery is enqueued again, because the timer queue that held
 * their messages was in memory.
 */
const startWebhooks = async (deps: AppDeps, endpoint: string, allowLoopback: boolean, functions: FunctionContext) => {
  let deliver: ReturnType<typeof createDeliver> | undefined;
  const queue = new TimerQueue({
    deliver: (event) => deliver!(event),
    onError: (error, deliveryId) => deps.logger.error('local delivery failed', { deliveryId, errorName: (error as Error)?.name }),
  });
  const webhookDeps = createWebhookDeps(deps, { queue, allowLoopback });
  deliver = functions.worker('deliver', createDeliver(webhookDeps));
  const poller = await new StreamPoller({
    db: deps.db,
    tableName: deps.tableName,
    endpoint,
    handle: functions.worker('fanOut', createFanOut(webhookDeps)),
    checkpoints: new TableStreamCheckpoints(deps.db, deps.tableName),
    onError: (error) => deps.logger.error('local stream poll failed', { errorName: (error as Error)?.name }),
  }).start();
  const sweep = functions.worker('deliverySweep', createDeliverySweep(webhookDeps));
  await sweep({ allPending: true });
  const sweepTimer = setInterval(() => {
    sweep().catch((error: unknown) => deps.logger.error('local delivery sweep failed', { errorName: (error as Error)?.name }));
  }, 60_000);
  sweepTimer.unref();
  return {
    deps: webhookDeps,
    stop: async () => {
      clearInterval(sweepTimer);
      await poller.stop();
      await queue.stop();
    },
  };
};
