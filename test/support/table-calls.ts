import type { Documents } from '../../lambdas/store/dynamo.ts';
import { newId } from '../../lambdas/core/ids.ts';

/**
 * The table calls a document client sends while `during` runs, by command name: a batch or a
 * transaction is one call, whatever it names, and the reads a function batches (store/coalesced-
 * reads.ts) are counted as the one BatchGetItem they become. Count only where nothing else runs.
 */
export const tableCallsDuring = async (db: Documents, during: () => Promise<unknown>): Promise<string[]> => {
  const calls: string[] = [];
  const name = `countTableCalls-${newId()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await during();
  } finally {
    db.middlewareStack.remove(name);
  }
  return calls;
};
