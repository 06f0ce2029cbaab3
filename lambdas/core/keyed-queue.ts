/**
 * Runs work one at a time per key within this process, in arrival order. A Lambda container
 * serves one call at a time, so this matters where one process serves many (the local runtime):
 * there, calls that would only race each other on one item's optimistic lock wait their turn
 * instead, and the retry on a lost race is left to real contention between processes.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** `work` is told whether it waited behind another (then what it read before may be stale). */
  run<T>(key: string, work: (waited: boolean) => Promise<T>): Promise<T> {
    const waited = this.tails.has(key);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => work(waited));
    this.tails.set(key, next);
    void next
      .finally(() => {
        if (this.tails.get(key) === next) this.tails.delete(key);
      })
      .catch(() => undefined);
    return next;
  }
}
