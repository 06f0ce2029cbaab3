import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../lambdas/local/dynamodb-local.ts';
import { describeFindings } from './secret-scan.ts';
import { recordedSecrets, removeRecordedOutboxes, scanTablesForPlainSecrets } from './table-secret-scan.ts';
import { TrailTypeCheck } from './trail-type-check.ts';
import { TEST_ENGINE_JVM_OPTIONS } from './engine-jvm.ts';
import { buildAdminCliBundle } from './admin-cli-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    shownSecretsDir: string;
    /** The operator CLI, bundled for this run (admin-cli-bundle.ts). */
    adminCli: string;
    /**
     * A folder for the whole run, shared by the test files' processes and removed at the end:
     * what one process makes once there, the others read (the bundled stack, synthesised-stack.ts).
     */
    runDir: string;
  }
}

/**
 * One in-memory DynamoDB Local for the whole run, on a free loopback port; each test file makes
 * its own table. At the end, before the engine stops, every item of every table is searched for
 * secrets in plain text (by format, and for every value a test was shown, recorded under
 * `shownSecretsDir`): a finding fails the run.
 */
export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.JDK_JAVA_OPTIONS = TEST_ENGINE_JVM_OPTIONS;
  const [dynamo, adminCli] = await Promise.all([startDynamoLocal(), buildAdminCliBundle()]);
  const shownSecretsDir = mkdtempSync(join(tmpdir(), 'handoff-shown-secrets-'));
  const runDir = mkdtempSync(join(tmpdir(), 'handoff-run-'));
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('shownSecretsDir', shownSecretsDir);
  project.provide('adminCli', adminCli);
  project.provide('runDir', runDir);
  return async () => {
    let failure: Error | null = null;
    try {
      const shown = recordedSecrets(shownSecretsDir);
      const trail = new TrailTypeCheck();
      const { findings, tables, items } = await scanTablesForPlainSecrets(dynamo.endpoint, shown, (page) => trail.visit(page));
      console.log(`Plain-secret scan: ${items} items of ${tables} tables, by format and for ${shown.size} values the tests were shown: ${findings.length} found.`);
      console.log(trail.summary());
      if (findings.length > 0) {
        failure = new Error(`Secrets stored in plain text: ${findings.length} found in ${items} items of ${tables} tables:\n${describeFindings(findings)}`);
      } else if (trail.unlisted.size > 0) {
        failure = new Error(trail.summary());
      }
    } finally {
      await dynamo.stop();
      removeRecordedOutboxes(shownSecretsDir);
      rmSync(shownSecretsDir, { recursive: true, force: true });
      rmSync(adminCli, { force: true });
      rmSync(runDir, { recursive: true, force: true });
    }
    if (failure) {
      // Vitest only prints an error thrown here ("error during close") and keeps the exit code: set it, so `vitest run` fails.
      process.exitCode = 1;
      throw failure;
    }
  };
}
