import { execFile } from 'node:child_process';
import { inject } from 'vitest';
import { recordAnswer, recordShownSecrets } from './shown-secrets.ts';

/** Flags whose value is a secret the operator hands the CLI (sealed by it, never stored in plain text). */
const SECRET_FLAGS = new Set(['--header-value', '--signing-secret']);

/** The secrets of a run, for the end-of-run table scan: those passed in flags and those printed (the JSON after any plain lines). */
const recordCliSecrets = (args: readonly string[], stdout: string) => {
  recordShownSecrets(args.filter((_arg, index) => index > 0 && SECRET_FLAGS.has(args[index - 1]!)));
  const json = stdout.slice(stdout.indexOf('{'));
  try {
    recordAnswer(JSON.parse(json));
  } catch {
    // Not JSON (a refusal on stderr, a help text): nothing shown.
  }
};

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operator CLI as a process (the run's bundle of bin/admin.ts, admin-cli-bundle.ts), on a
 * test's table in the run's DynamoDB Local (--endpoint and --table, as against a deployed table).
 */
export const runAdminCli = (tableName: string, command: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<CliRun>((resolve) => {
    execFile(
      process.execPath,
      [inject('adminCli'), command, ...args, '--endpoint', inject('dynamoEndpoint'), '--table', tableName],
      { cwd: process.cwd(), env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        recordCliSecrets(args, stdout);
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
