/**
 * Runs `work` on every item, at most `limit` at a time (the storage calls of a batch overlap
 * without flooding the table). Resolves when all are done; `work` handles its own failures.
 */
export const forEachLimited = async <T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
};
