import { ticketCheckKey, ticketCheckOfKey, type TicketCheck, type TicketCheckQueue } from '#core/ticket-check.ts';
import { TimerScheduler } from './timer-scheduler.ts';

export interface TimerTicketChecksOptions {
  /** The ticket-check worker, called with the check once it falls due. */
  run(check: TicketCheck): Promise<unknown>;
  /** The reconciliation, every `reconcileIntervalMs` and once at start. */
  reconcile(): Promise<unknown>;
  /** At most two minutes (the promise in docs/tickets-and-helpdesks.md); default one minute. */
  reconcileIntervalMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * Stands in for the ticket-check queue and the reconciliation's schedule locally: one timer per
 * ticket (a new check of the same ticket replaces one still waiting, as the queue's consumer
 * would find nothing left to do after the first), in memory only; after a restart, the
 * reconciliation's first run reads every linked ticket.
 */
export class TimerTicketChecks implements TicketCheckQueue {
  private readonly attempts = new Map<string, number>();
  private readonly timers: TimerScheduler;
  private readonly now: () => number;

  constructor(options: TimerTicketChecksOptions) {
    this.now = options.now ?? Date.now;
    this.timers = new TimerScheduler({
      fire: (key) => {
        const attempt = this.attempts.get(key) ?? 0;
        this.attempts.delete(key);
        return options.run(ticketCheckOfKey(key, attempt));
      },
      sweep: () => options.reconcile(),
      sweepIntervalMs: options.reconcileIntervalMs ?? 60_000,
      now: this.now,
      onError: (error) => options.onError?.(error),
    });
  }

  async enqueue(check: TicketCheck, delaySeconds: number) {
    const key = ticketCheckKey(check);
    this.attempts.set(key, check.attempt);
    await this.timers.schedule(key, new Date(this.now() + Math.max(0, delaySeconds) * 1000).toISOString());
  }

  start() {
    this.timers.start();
    return this;
  }

  stop() {
    return this.timers.stop();
  }
}
