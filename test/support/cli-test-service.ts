import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { SEALING_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { runAdminCli } from './admin-cli.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';

/**
 * A test service and one organisation for a file that runs the operator CLI as a process: the
 * service seals with a key file in a DATA_DIR of its own, which the CLI is given, so what either
 * seals the other opens. Started before the file's tests and removed after them.
 */
export const cliTestService = (organisationName: string) => {
  const state = {} as { dataDir: string; service: TestService; org: TestOrganisation };
  beforeAll(async () => {
    state.dataDir = mkdtempSync(join(tmpdir(), 'handoff-cli-data-'));
    state.service = await startTestService({ sealer: await KeyFileSealer.fromFile(join(state.dataDir, SEALING_KEY_FILE)) });
    state.org = await state.service.createOrganisation({ name: organisationName });
  });
  afterAll(async () => {
    await state.service?.stop();
    if (state.dataDir) rmSync(state.dataDir, { recursive: true, force: true });
  });
  /** One CLI command on the service's table, with its DATA_DIR. */
  const cli = (command: string, args: string[]) => runAdminCli(state.service.deps.tableName, command, args, { DATA_DIR: state.dataDir });
  return { state, cli };
};
