/** A command's flags, as parsed. */
export type Flags = Record<string, string | string[] | boolean | undefined>;

/** A mistake in how a command was called: its message is printed alone, and the CLI exits 1. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A flag's value; a UsageError when it is missing or empty. */
export const text = (flags: Flags, name: string) => {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
};

/** A flag's value, or undefined when it is not given (an empty one is refused when the flags are read: bin/admin.ts). */
export const optionalText = (flags: Flags, name: string) => (typeof flags[name] === 'string' && flags[name] !== '' ? (flags[name] as string) : undefined);
