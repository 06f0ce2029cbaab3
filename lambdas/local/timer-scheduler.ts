import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExpiryScheduler } from '#core/ports.ts';

/** setTimeout's largest delay (about 24.8 days); a longer wait is re-armed in hops. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
export const LOCAL_SWEEP_INTERVAL_MS = 60_000;

export interface TimerSchedulerOptions {
  /** The worker (expiry or purge), called with the request id once it falls due. */
  fire(requestId: string): Promise<unknown>;
  /** The sweep worker, called every `sweepIntervalMs` and once at start; none for a scheduler without one. */
  sweep?(): Promise<unknown>;
  sweepIntervalMs?: number;
  /** The service's clock, in epoch milliseconds; timers wait until it reaches the due time. */
  now?: () => number;
  /** A worker call that failed; the sweep retries what the timer missed. */
  onError?: (error: unknown, requestId: string | null) => void;
}

/**
 * Stands in for EventBridge Scheduler locally: one timer per request id (arming again replaces
 * it), calling the same expiry worker a schedule would invoke, plus the periodic sweep. Timers
 * are unref'd (they never keep the process alive) and live in memory only: after a restart the
 * first sweep expires whatever fell due meanwhile, and later ones whatever is due before its
 * timer would have been re-armed.
 */
export class TimerScheduler implements ExpiryScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping = false;
  private stopped = false;
  private readonly now: () => number;
  /**
   * Runs a worker call in the context the scheduler was made in (the service's, at start), not in
   * the one of the call that armed the timer: a timer callback inherits its arming call's async
   * context, and with it that function's table access and read batching, as a queued worker
   * deployed (a function of its own) never does.
   */
  private readonly inServiceContext = AsyncLocalStorage.snapshot();

  constructor(private readonly options: TimerSchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  async schedule(requestId: string, atIso: string) {
    const at = Date.parse(atIso);
    if (Number.isNaN(at)) throw new Error(`not a date-time: ${atIso}`);
    this.clear(requestId);
    if (!this.stopped) this.arm(requestId, at);
  }

  async cancel(requestId: string) {
    this.clear(requestId);
  }

  /** Request ids with a timer armed. */
  pending(): string[] {
    return [...this.timers.keys()];
  }

  /** Starts the periodic sweep, with a first sweep straight away. */
  start() {
    if (this.stopped || this.sweepTimer) return this;
    this.runSweep();
    this.sweepTimer = setInterval(() => this.runSweep(), this.options.sweepIntervalMs ?? LOCAL_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    return this;
  }

  /** Clears every timer and waits for worker calls in flight, so the store can be closed after. */
  async stop() {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private arm(requestId: string, at: number) {
    const delay = Math.min(Math.max(0, at - this.now()), MAX_TIMER_DELAY_MS);
    const timer = setTimeout(() => {
      if (this.timers.get(requestId) !== timer) return;
      this.timers.delete(requestId);
      // Not there yet (a capped delay, or a clock behind the timer): wait again.
      if (this.now() < at) this.arm(requestId, at);
      else this.track(this.inServiceContext(() => this.options.fire(requestId)), requestId);
    }, delay);
    timer.unref();
    this.timers.set(requestId, timer);
  }

  private clear(requestId: string) {
    const timer = this.timers.get(requestId);
    if (timer) clearTimeout(timer);
    this.timers.delete(requestId);
  }

  private runSweep() {
    const sweep = this.options.sweep;
    if (!sweep || this.sweeping || this.stopped) return;
    this.sweeping = true;
    this.track(
      sweep().finally(() => {
        this.sweeping = false;
      }),
      null,
    );
  }

  private track(call: Promise<unknown>, requestId: string | null) {
    const tracked = call.catch((error: unknown) => this.options.onError?.(error, requestId));
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }
}
