import type { Documents } from '../../lambdas/store/dynamo.ts';
import { newId } from '../../lambdas/core/ids.ts';

/** An item's attribute as a plain value, whether the answer holds it marshalled (`{ S: 'x' }`) or not. */
const plain = (value: unknown): unknown => {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entry = value as Record<string, unknown>;
    if ('S' in entry) return entry.S;
    if ('N' in entry) return Number(entry.N);
  }
  return value;
};

/**
 * Makes the table's global secondary indexes lag as DynamoDB's do deployed (DynamoDB Local updates
 * them at once): while `during` runs, a Query or Scan of an index leaves out the items whose `id`
 * is one of `hidden`, as if their writes had not reached the index yet. Reads of the table itself
 * are untouched, as a consistent read sees every committed write.
 */
export const withLaggingIndexes = async <T>(db: Documents, hidden: Iterable<string>, during: () => Promise<T>): Promise<T> => {
  const notYetIndexed = new Set(hidden);
  const name = `laggingIndexes-${newId()}`;
  db.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const input = args.input as { IndexName?: string };
      const output = result.output as { Items?: Record<string, unknown>[]; Count?: number };
      if (input.IndexName && output.Items) {
        output.Items = output.Items.filter((item) => !notYetIndexed.has(plain(item.id) as string));
        output.Count = output.Items.length;
      }
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    return await during();
  } finally {
    db.middlewareStack.remove(name);
  }
};
