/**
 * The webhook pipeline's own capacity, apart from the commit rate: events committed with no
 * pipeline running, then a service with it started over the same table. Its stream poller, having
 * no checkpoint, reads the stream from the oldest record, so the whole backlog goes through the
 * fan-out and the delivery worker as fast as they can take it (as after a restart). Beside it, the
 * raw PutItem + GetItem pairs per second of the same engine, and the table calls per event the
 * fan-out and delivery functions made.
 */
import { KeyFileSealer } from '../lambdas/local/key-file-sealer.ts';
import { startLocalService } from '../lambdas/local/local-service.ts';
import { POLL_INTERVAL_MS } from '../lambdas/local/stream-poller.ts';
import { rawPutGetPair } from './raw-calls.ts';
import { formatMs, measure, type Measurement } from './stats.ts';
import { tableCallCounter } from './table-calls.ts';
import { allReceived, commitEvents, DRAIN_TIMEOUT_MS, subscribeBenchOrg } from './webhook-load.ts';
import { startReceiver } from './webhook-receiver.ts';

/** The drain's targets: at least this share of the raw pairs per second, in at most this many table calls per event. */
export const DRAIN_RATE_TARGET = 0.4;
export const DRAIN_CALLS_TARGET = 3;

export interface DrainResult {
  events: number;
  /** From the start of the service to the last verified receipt. */
  drainMs: number;
  eventsPerSecond: number;
  duplicates: number;
  failures: string[];
  /** The fan-out's and the delivery worker's table calls, per event delivered. */
  callsPerEvent: number;
  /**
   * One conditional PutItem then one GetItem per call, on the same engine before the events are
   * committed (after the warm-up `measure` gives every path), its throughput at `concurrency`.
   */
  baseline: Measurement;
  concurrency: number;
}

export const measureBacklogDrain = async (options: { dynamoEndpoint: string; events: number; concurrency: number; iterations: number; total: number }): Promise<DrainResult> => {
  const tableName = 'bench-fanout-backlog';
  const receiver = await startReceiver();
  // One sealing key for both services, as one deployment has: the reader opens the webhook secret the writer sealed.
  const sealer = KeyFileSealer.inMemory();
  try {
    const writer = await startLocalService({ dynamoEndpoint: options.dynamoEndpoint, tableName, announce: () => undefined, webhooks: false, allowLoopbackWebhooks: true, timers: false, sealer });
    let commits: Map<string, number>;
    let baseline: Measurement;
    try {
      const { db } = writer.deps;
      baseline = await measure('raw PutItem + GetItem', () => rawPutGetPair(db, tableName), options);
      const org = await subscribeBenchOrg(writer, receiver);
      commits = await commitEvents(org, options.events, options.concurrency);
      org.client.close();
    } finally {
      await writer.stop();
    }
    const calls = tableCallCounter();
    const started = Date.now();
    const reader = await startLocalService({
      dynamoEndpoint: options.dynamoEndpoint,
      tableName,
      announce: () => undefined,
      webhooks: true,
      allowLoopbackWebhooks: true,
      timers: false,
      sealer,
      tableAccess: calls.tableAccess,
    });
    try {
      await allReceived(receiver, commits, DRAIN_TIMEOUT_MS + options.events * 100);
      const drainMs = Math.max(...[...receiver.receipts.values()].map((r) => r.at)) - started;
      // A late duplicate still counts.
      await new Promise((done) => setTimeout(done, POLL_INTERVAL_MS * 2));
      const receipts = [...receiver.receipts.values()].reduce((sum, r) => sum + r.count, 0);
      return {
        events: options.events,
        drainMs,
        eventsPerSecond: options.events / (drainMs / 1000),
        duplicates: receipts - receiver.receipts.size,
        failures: receiver.failures,
        callsPerEvent: calls.of('fanOut', 'deliver') / receiver.receipts.size,
        baseline,
        concurrency: options.concurrency,
      };
    } finally {
      await reader.stop();
    }
  } finally {
    await receiver.close();
  }
};

export const drainReport = (result: DrainResult): string[] => {
  const share = result.eventsPerSecond / result.baseline.throughput;
  const verdict = (met: boolean) => (met ? 'ok' : 'MISS');
  return [
    `\nWebhook backlog drain: ${result.events} events committed with no pipeline running, then a service started over the table;`,
    `its stream poller reads the backlog from the oldest record. All ${result.events} verified at the receiver ${formatMs(result.drainMs)} after the start:`,
    `${result.eventsPerSecond.toFixed(1)} events/s, the pipeline's own capacity on this machine; none lost; duplicates: ${result.duplicates}; verification failures: ${result.failures.length}`,
    ...result.failures.slice(0, 20).map((failure) => `  FAILED ${failure}`),
    `raw PutItem + GetItem on the same engine, before the commits: ${result.baseline.throughput.toFixed(0)} pairs/s at concurrency ${result.concurrency} (p50 ${formatMs(result.baseline.p50)});` +
      ` table calls per event (fan-out and delivery worker): ${result.callsPerEvent.toFixed(2)}`,
    `Backlog drain: ${result.eventsPerSecond.toFixed(1)} events/s is ${(100 * share).toFixed(0)}% of the raw pairs/s (target: at least ${100 * DRAIN_RATE_TARGET}%) ${verdict(share >= DRAIN_RATE_TARGET)};` +
      ` ${result.callsPerEvent.toFixed(2)} table calls per event (target: at most ${DRAIN_CALLS_TARGET}) ${verdict(result.callsPerEvent <= DRAIN_CALLS_TARGET)};` +
      ` ${result.duplicates} duplicate and ${result.failures.length} failed deliveries (target: none) ${verdict(result.duplicates === 0 && result.failures.length === 0)}.`,
  ];
};
