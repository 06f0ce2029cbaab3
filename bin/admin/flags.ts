/** A command's flags, as parsed. */
export type Flags = Record<string, string | string[] | boolean | undefined>;

/** A mistake in how a command was called: its message is printed alone, and the CLI exits 1. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
