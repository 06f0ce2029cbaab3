/**
 * `verify-custody-certificate` in-process, typed: the tests call `main` with their own console,
 * fetch and file reading. The command itself is tools/verify-custody-certificate.mjs (one plain
 * JavaScript file with no dependencies, which auditors read and run with `node`); this only gives
 * it types. Programs that verify certificates should import the library entry,
 * lambdas/core/custody/verify.ts, which makes the same checks.
 */
// @ts-expect-error -- the verifier is plain JavaScript without a declaration file, on purpose (see above).
import { main as run } from '../tools/verify-custody-certificate.mjs';

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  fetch: typeof fetch;
  readFile: (path: string) => Promise<Uint8Array>;
}

/** Runs the command on `argv`; returns its exit status (0 valid, 1 invalid, 2 usage error). */
export const main: (argv: string[], io?: Partial<CliIo>) => Promise<number> = run;
