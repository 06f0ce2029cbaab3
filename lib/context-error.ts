/**
 * A deploy's context (`-c name=value`) that cannot make a stack: missing or malformed. The CDK app
 * (bin/handoff.ts) prints its message alone, since a stack trace would bury the one line that says
 * what to pass.
 */
export class ContextError extends Error {
  override readonly name = 'ContextError';
}
