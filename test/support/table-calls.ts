import type { Documents } from '../../lambdas/store/dynamo.ts';
import { newId } from '../../lambdas/core/ids.ts';

/** Runs `during` with `onCall` told of every table call the document client sends meanwhile: its command's name and input. */
export const watchTableCalls = async (db: Documents, onCall: (command: string, input: Record<string, unknown>) => void, during: () => Promise<unknown>) => {
  const name = `watchTableCalls-${newId()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      onCall(String(context.commandName), args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await during();
  } finally {
    db.middlewareStack.remove(name);
  }
};

/**
 * The table calls a document client sends while `during` runs, by command name: a batch or a
 * transaction is one call, whatever it names, and the reads a function batches (store/coalesced-
 * reads.ts) are counted as the one BatchGetItem they become. Count only where nothing else runs.
 */
export const tableCallsDuring = async (db: Documents, during: () => Promise<unknown>): Promise<string[]> => {
  const calls: string[] = [];
  await watchTableCalls(db, (command) => calls.push(command.replace(/Command$/, '')), during);
  return calls;
};
