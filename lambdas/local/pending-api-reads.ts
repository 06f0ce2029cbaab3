import type { ApiRead, ApiReadLog } from '#core/api-reads.ts';

/** Records stored together at most (one BatchWriteItem). */
const BATCH = 25;
/** How long the first record of a batch waits for others, as the log subscription gathers lines. */
const GATHER_MS = 50;
/** How long a batch that failed waits before it is tried again. */
const RETRY_MS = 1000;

/**
 * The local stand-in for the log subscription (adapters/api-read-lines.ts): the reading handlers
 * hand their records over here instead of as log lines, and they are stored in batches after the
 * answers, off the read path as deployed. A batch that fails is logged and kept for the next one.
 * `settled` waits until every record handed over so far is stored; the service's stop waits for
 * it, so only a killed process can lose records it had not stored yet.
 */
export class PendingApiReads implements ApiReadLog {
  private pending: ApiRead[] = [];
  private timer: NodeJS.Timeout | null = null;
  private storing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: (reads: ApiRead[]) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  async record(read: ApiRead): Promise<void> {
    this.pending.push(read);
    if (this.pending.length >= BATCH) this.storeNow();
    else this.timer ??= setTimeout(() => this.storeNow(), GATHER_MS);
  }

  /** Resolves once every record handed over before the call is stored (or has failed to be). */
  async settled(): Promise<void> {
    if (this.pending.length > 0) this.storeNow();
    await this.storing;
  }

  private storeNow() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending.splice(0, BATCH);
    this.storing = this.storing.then(async () => {
      try {
        await this.store(batch);
      } catch (error) {
        this.onError(error);
        this.pending.unshift(...batch);
        // Tried again a second later; the timer does not keep a stopping process alive.
        this.timer ??= setTimeout(() => this.storeNow(), RETRY_MS).unref();
      }
    });
    if (this.pending.length > 0) this.storeNow();
  }
}
