/**
 * Counts the table calls each function of a local service sends, through its table access guard
 * (lambdas/access/table-access-guard.ts) set to count only, so that the figures timed beside are
 * not slowed by checks: a batch or a transaction is one call, whatever it names; the local
 * stand-ins' own calls (the stream poller's checkpoints) are no function's and are not counted.
 */
export const tableCallCounter = () => {
  const calls = new Map<string, number>();
  return {
    /** For startLocalService's `tableAccess`. */
    tableAccess: { enforce: false, onCall: (functionName: string) => void calls.set(functionName, (calls.get(functionName) ?? 0) + 1) },
    /** The calls the named functions sent since the last reset. */
    of: (...functionNames: string[]) => functionNames.reduce((sum, name) => sum + (calls.get(name) ?? 0), 0),
    reset: () => calls.clear(),
  };
};
