import type { DueCursor, DuePage, DuePaging } from './ports.ts';

/** Index pages read per sweep unless the caller says otherwise. */
const DEFAULT_MAX_ROUNDS = 10;

/**
 * Reads the byDue index a page at a time, each page going on where the previous one stopped, until
 * every shard has been read to its end or `maxRounds` pages were read, and hands each page's ids
 * to `settle`, leaving out any id an earlier page already listed. Starting each page at the top
 * again would not do deployed: the index lags the table, so the top of a shard can still list the
 * ids the previous page ended, and the backlog behind them would wait for the next sweep.
 */
export const forEachDuePage = async (
  read: (page: DuePaging) => Promise<DuePage>,
  options: { maxRounds?: number; pageSize?: number },
  settle: (ids: string[]) => Promise<void>,
) => {
  const seen = new Set<string>();
  let after: DueCursor | undefined;
  const maxRounds = Math.max(1, options.maxRounds ?? DEFAULT_MAX_ROUNDS);
  for (let round = 0; round < maxRounds; round++) {
    const page = await read({ limit: options.pageSize, after });
    const ids = page.ids.filter((id) => !seen.has(id));
    for (const id of ids) seen.add(id);
    if (ids.length > 0) await settle(ids);
    if (!page.next) return;
    after = page.next;
  }
};
