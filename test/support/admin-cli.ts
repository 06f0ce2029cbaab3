import { execFile } from 'node:child_process';
import { inject } from 'vitest';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operator CLI as a process (`node --import tsx bin/admin.ts <command> ...`), on a test's
 * table in the run's DynamoDB Local (--endpoint and --table, as against a deployed table).
 */
export const runAdminCli = (tableName: string, command: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<CliRun>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', command, ...args, '--endpoint', inject('dynamoEndpoint'), '--table', tableName],
      { cwd: process.cwd(), env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
