/**
 * The local service with every meter of the cost table attached: the same handlers and workers as
 * `npm start`, each function held to its table access declaration, the webhook pipeline on (to
 * loopback receivers), logging at INFO as deployed; the key files, schedulers and delivery queue
 * wrapped so their calls are counted as the AWS calls they stand for. No expiry timer runs: the
 * schedules are only counted (a handoff completes long before its expiry).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../lambdas/local/local-service.ts';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { KeyFileSigningCustody } from '../../lambdas/local/key-file-signing.ts';
import { InvocationMeter } from './invocation-meter.ts';
import { KmsMeter } from './kms-meter.ts';
import { LogMeter } from './log-meter.ts';
import { MeteredHttp } from './metered-http.ts';
import { outboxCounts } from './outbox-meter.ts';
import { QueueMeter } from './queue-meter.ts';
import { ScheduleMeter } from './schedule-meter.ts';
import { TableCapacityMeter } from './table-capacity-meter.ts';
import type { WindowCounts } from './usage.ts';

/** Run on a schedule whatever the traffic (every few minutes deployed): a fixed cost of the stack, not of any unit of work. */
const PERIODIC_WORKERS: ReadonlySet<string> = new Set(['sweep', 'deliverySweep', 'reconcile']);

const TABLE_NAME = 'bench-cost';

export const startMeteredService = async (dynamoEndpoint: string) => {
  const invocations = new InvocationMeter(PERIODIC_WORKERS);
  const kms = new KmsMeter(invocations);
  const schedules = new ScheduleMeter();
  const outboxDir = mkdtempSync(join(tmpdir(), 'cost-outbox-'));
  const service = await startLocalService({
    dynamoEndpoint,
    tableName: TABLE_NAME,
    outboxDir,
    announce: () => undefined,
    timers: false,
    scheduler: schedules.scheduler('expire'),
    purgeScheduler: schedules.scheduler('purge'),
    codeKey: kms.codeKey(KeyFileCodeKey.inMemory()),
    sealer: kms.sealer(KeyFileSealer.inMemory()),
    signingCustody: kms.signing(KeyFileSigningCustody.inMemory()),
    webhooks: true,
    allowLoopbackWebhooks: true,
    tableAccess: { enforce: true },
  });
  // The level the stack gives every function (lib/api-functions.ts, loggingEnvironment).
  service.deps.logger.setLogLevel('INFO');
  invocations.attach(service.tableAccess!);
  const capacity = new TableCapacityMeter(invocations, TABLE_NAME, service.dynamoEndpoint).attach(service.deps.db);
  const queue = new QueueMeter(invocations).attach(service.webhooks!.queue);
  const logs = new LogMeter(invocations).countReadLines(service.deps.apiReads!).captureOutput();
  const http = new MeteredHttp(service.appUrl);

  let start = { emails: 0, armed: 0 };
  /** Starts a window: every count from zero. */
  const reset = () => {
    for (const meter of [invocations, capacity, kms, schedules, queue, logs, http]) meter.reset();
    start = { emails: outboxCounts(outboxDir).emails, armed: schedules.armedSchedules };
  };
  /** What the meters counted since `reset`, over `units` units of work; `webhookBytes`: what the receivers were sent. */
  const counts = (units: number, webhookBytes: number): WindowCounts => ({
    units,
    functions: invocations.byFunction(),
    readUnits: capacity.readUnits,
    writeUnits: capacity.writeUnits,
    kmsSymmetricRequests: kms.symmetricRequests,
    kmsAsymmetricRequests: kms.asymmetricRequests,
    queueMessages: queue.messages,
    scheduleApiCalls: schedules.apiCalls,
    schedulesLeftArmed: Math.max(0, schedules.armedSchedules - start.armed),
    emails: outboxCounts(outboxDir).emails - start.emails,
    apiRequests: http.requests,
    accessLogBytes: http.accessLogBytes,
    transferOutBytes: http.transferOutBytes + webhookBytes,
    functionLogBytes: logs.bytes,
    functionLogLines: logs.lines,
  });
  /** Invocations so far in the window: unchanged for a while, the background work is done. */
  const invocationsSoFar = () => [...invocations.byFunction().values()].reduce((sum, usage) => sum + usage.invocations, 0);

  return {
    service,
    http,
    outboxDir,
    reset,
    counts,
    invocationsSoFar,
    transactionMismatches: capacity.transactionMismatches,
    stop: async () => {
      logs.stop();
      await service.stop();
      capacity.close();
      // The outbox writes each message beside itself first (`<outbox>.partial`), then moves it in.
      for (const folder of [outboxDir, `${outboxDir}.partial`]) rmSync(folder, { recursive: true, force: true });
    },
  };
};

export type MeteredService = Awaited<ReturnType<typeof startMeteredService>>;
