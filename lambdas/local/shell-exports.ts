/** Single quotes keep every character as it is; a quote inside is closed, escaped and reopened. */
const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * Lines a POSIX shell runs (`. file`, `eval "$(...)"`) to set these variables, exported so that a
 * program started from that shell sees them too.
 */
export const shellExports = (variables: Record<string, string>) => Object.entries(variables).map(([name, value]) => `export ${name}=${quoted(value)}`);
