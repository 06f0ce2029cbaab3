/**
 * The webhook fan-out, end to end on loopback: events per second from commit to verified receipt,
 * and the commit-to-receipt latency (p50/p95/p99). A second local service (its own table, on the
 * bench's DynamoDB Local) runs the local webhook pipeline: the stream poller reads the table's real
 * stream every 250 ms into the fan-out handler, which writes a delivery per matching subscription
 * and enqueues it on the timer queue, which runs the delivery worker, which POSTs the signed event.
 * A receiver on 127.0.0.1 verifies every delivery (the `standardwebhooks` library and the legacy
 * X-Service-Signature header) before it answers 200. Beside it, a raw DynamoDB Local baseline
 * measured in the same run.
 */
import { startLocalService } from '../lambdas/local/local-service.ts';
import { POLL_INTERVAL_MS } from '../lambdas/local/stream-poller.ts';
import { rawPutGetPair } from './raw-calls.ts';
import { formatMs, measure, percentile, type Measurement } from './stats.ts';
import { tableCallCounter } from './table-calls.ts';
import { allReceived, commitEvents, subscribeBenchOrg } from './webhook-load.ts';
import { startReceiver, type Receipt } from './webhook-receiver.ts';

/** Events committed and received first, not counted: the fan-out and delivery code paths warm up. */
const WARM_UP_EVENTS = 16;

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export interface FanOutResult {
  events: number;
  concurrency: number;
  /** Events committed per second (POST /v1/requests answered, first to last). */
  commitRate: number;
  /** N / (last verified receipt - first commit). */
  eventsPerSecond: number;
  /** From the POST's 201 to the verified receipt. */
  latency: Percentiles;
  /** From the event's occurred_at (stamped just before the commit's TransactWriteItems) to the verified receipt. */
  fromOccurredAt: Percentiles;
  /** The latency's p50 over the first and the last quarter of the events by commit time: flat if the pipeline kept up, growing if a backlog built. */
  firstQuarterP50: number;
  lastQuarterP50: number;
  /**
   * Where the time goes, from the delivery records' own timestamps: commit to the delivery record
   * created (the stream poll and the fan-out), to the attempt claimed (the timer queue and the
   * worker's reads), to the verified receipt (the event read, the signed POST, the verification).
   */
  stages: Array<{ name: string } & Percentiles>;
  /** From the last commit to the last verified receipt. */
  drainMs: number;
  /** Verified receipts in all, and of how many distinct events (at-least-once: more receipts than events are duplicates). */
  receipts: number;
  duplicates: number;
  /** Deliveries that failed verification, or were not the events committed; should be none. */
  failures: string[];
  /** One conditional PutItem then one GetItem per call, on the same table. */
  baseline: Measurement;
  /** The fan-out's and the delivery worker's table calls, per measured event. */
  callsPerEvent: number;
}

const percentiles = (samples: number[]): Percentiles => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
};

/** The per-stage latencies, from each delivery's createdAt (fan-out) and lastAttemptAt (claim). */
const deliveryStages = async (service: Awaited<ReturnType<typeof startLocalService>>, measured: Receipt[], commits: Map<string, number>) => {
  const store = service.webhooks!.deliveries;
  const rows: Array<{ commit: number; created: number; claimed: number; received: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < measured.length) {
        const receipt = measured[next++];
        const delivery = await store.get(receipt.deliveryId);
        if (!delivery?.lastAttemptAt) continue;
        rows.push({ commit: commits.get(receipt.requestId)!, created: Date.parse(delivery.createdAt), claimed: Date.parse(delivery.lastAttemptAt), received: receipt.at });
      }
    }),
  );
  return [
    { name: 'commit -> delivery created', ...percentiles(rows.map((r) => r.created - r.commit)) },
    { name: '-> attempt claimed', ...percentiles(rows.map((r) => r.claimed - r.created)) },
    { name: '-> verified receipt', ...percentiles(rows.map((r) => r.received - r.claimed)) },
  ];
};

export const measureFanOut = async (options: {
  dynamoEndpoint: string;
  events: number;
  concurrency: number;
  /** For the raw baseline: sequential calls for latency, and calls at `concurrency` for throughput. */
  iterations: number;
  total: number;
}): Promise<FanOutResult> => {
  const receiver = await startReceiver();
  const calls = tableCallCounter();
  const service = await startLocalService({
    dynamoEndpoint: options.dynamoEndpoint,
    tableName: 'bench-fanout',
    announce: () => undefined,
    webhooks: true,
    allowLoopbackWebhooks: true,
    timers: false,
    tableAccess: calls.tableAccess,
  });
  try {
    const { deps } = service;
    const { db, tableName } = deps;

    // The raw baseline first, before anything is subscribed.
    const baseline = await measure('raw PutItem + GetItem', () => rawPutGetPair(db, tableName), options);

    const org = await subscribeBenchOrg(service, receiver);
    try {
      await allReceived(receiver, await commitEvents(org, Math.min(WARM_UP_EVENTS, options.events), options.concurrency));
      const warmUpReceipts = new Set(receiver.receipts.keys());

      calls.reset();
      const commits = await commitEvents(org, options.events, options.concurrency);
      await allReceived(receiver, commits);
      const pipelineCalls = calls.of('fanOut', 'deliver');
      // Receipts of the measured events only; a late duplicate of one of them is still counted.
      await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS * 2));
      const measured = [...receiver.receipts.entries()].filter(([id, r]) => !warmUpReceipts.has(id) && commits.has(r.requestId)).map(([, r]) => r);
      const unexpected = [...receiver.receipts.entries()].filter(([id, r]) => !warmUpReceipts.has(id) && !commits.has(r.requestId));
      const failures = [...receiver.failures, ...unexpected.map(([id]) => `${id}: an event no POST of this run committed`)];

      const commitTimes = [...commits.values()];
      const firstCommit = Math.min(...commitTimes);
      const lastCommit = Math.max(...commitTimes);
      const lastReceipt = Math.max(...measured.map((r) => r.at));
      const receipts = measured.reduce((sum, r) => sum + r.count, 0);
      const stages = await deliveryStages(service, measured, commits);
      const byCommit = measured.map((r) => ({ commit: commits.get(r.requestId)!, latency: r.at - commits.get(r.requestId)! })).sort((a, b) => a.commit - b.commit);
      const quarter = Math.max(1, Math.floor(byCommit.length / 4));
      return {
        events: options.events,
        concurrency: options.concurrency,
        commitRate: options.events / ((lastCommit - firstCommit) / 1000),
        eventsPerSecond: options.events / ((lastReceipt - firstCommit) / 1000),
        latency: percentiles(measured.map((r) => r.at - commits.get(r.requestId)!)),
        fromOccurredAt: percentiles(measured.map((r) => r.at - Date.parse(r.occurredAt))),
        firstQuarterP50: percentiles(byCommit.slice(0, quarter).map((e) => e.latency)).p50,
        lastQuarterP50: percentiles(byCommit.slice(-quarter).map((e) => e.latency)).p50,
        stages,
        drainMs: lastReceipt - lastCommit,
        receipts,
        duplicates: receipts - measured.length,
        failures,
        baseline,
        callsPerEvent: pipelineCalls / measured.length,
      };
    } finally {
      org.client.close();
    }
  } finally {
    await service.stop();
    await receiver.close();
  }
};

/** The fan-out's table, with the raw baselines it rests on (the commit's TransactWriteItems is measured above). */
export const fanOutReport = (result: FanOutResult, rawCommit?: Measurement): string[] => {
  const line = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const widths = [32, 12, 12, 12];
  const fanOutStage = result.stages[0];
  const backlogged = fanOutStage.p50 > 2 * POLL_INTERVAL_MS;
  const lines = [
    `\nWebhook fan-out on loopback: ${result.events} request.created events, committed by POST /v1/requests at concurrency ${result.concurrency}`,
    `(after ${WARM_UP_EVENTS} warm-up events), each received by a loopback receiver that verifies it (standardwebhooks and X-Service-Signature)`,
    'before answering 200. Commit = the POST answered 201; receipt = the delivery verified.\n',
    line(['', 'p50', 'p95', 'p99'], widths),
    line(['commit -> verified receipt', formatMs(result.latency.p50), formatMs(result.latency.p95), formatMs(result.latency.p99)], widths),
    line(['occurred_at -> verified receipt', formatMs(result.fromOccurredAt.p50), formatMs(result.fromOccurredAt.p95), formatMs(result.fromOccurredAt.p99)], widths),
    ...result.stages.map((stage) => line([`  ${stage.name}`, formatMs(stage.p50), formatMs(stage.p95), formatMs(stage.p99)], widths)),
    '',
    `latency p50 over the first quarter of the events committed: ${formatMs(result.firstQuarterP50)}; over the last quarter: ${formatMs(result.lastQuarterP50)}`,
    `events/s, first commit to last verified receipt: ${result.eventsPerSecond.toFixed(1)}  (commits/s: ${result.commitRate.toFixed(1)}; last receipt ${formatMs(result.drainMs)} after the last commit)`,
    `verified receipts: ${result.receipts} of ${result.events} events; duplicates: ${result.duplicates}; verification failures: ${result.failures.length}`,
    ...result.failures.slice(0, 20).map((failure) => `  FAILED ${failure}`),
    ...(result.failures.length > 20 ? [`  ... and ${result.failures.length - 20} more`] : []),
    `raw DynamoDB Local, same run: PutItem + GetItem p50 ${formatMs(result.baseline.p50)}, p99 ${formatMs(result.baseline.p99)}, ${result.baseline.throughput.toFixed(0)} pairs/s at concurrency ${result.concurrency}` +
      (rawCommit ? `; ${rawCommit.name.replace(/^raw /, '')} (the commit) p50 ${formatMs(rawCommit.p50)}, ${rawCommit.throughput.toFixed(0)}/s` : ''),
    `p50 is ${(result.latency.p50 / result.baseline.p50).toFixed(1)}x the raw PutItem + GetItem p50; events/s is ${((100 * result.eventsPerSecond) / result.baseline.throughput).toFixed(0)}% of its pairs/s.`,
    `Note: the stream poller reads DynamoDB Local's stream every ${POLL_INTERVAL_MS} ms (after the previous poll's work): with the pipeline idle`,
    `between polls, that wait dominates the latency (on average half an interval, up to a whole one, against ~${formatMs(result.baseline.p50)} for a raw call pair).`,
    `Per event the pipeline then made ${result.callsPerEvent.toFixed(2)} table calls: the fan-out a Query per organisation per poll's batch and its`,
    "deliveries' puts several to a transaction; the delivery worker, per batch of messages, a BatchGetItem of the deliveries, one of their",
    "subscriptions and events, then each delivery's claim (UpdateItem) and signed POST, then the batch's outcomes in one transaction. Events",
    'committed one by one come in batches of about one, so the calls per event here are near their most. events/s cannot exceed the commit',
    'rate: the backlog drain below measures the pipeline alone.',
    ...(backlogged
      ? [
          `Here commit -> delivery created (p50 ${formatMs(fanOutStage.p50)}) is well over one poll interval: the fan-out fell behind the`,
          'writers, so its backlog, not the poll interval, dominates these figures.',
        ]
      : ['Here the pipeline kept up: commit -> delivery created is within about one poll interval.']),
  ];
  return lines;
};
