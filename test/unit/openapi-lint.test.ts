import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCUMENT_FILE } from '../../lambdas/http/openapi/files.ts';

/**
 * docs/openapi.json under Redocly's linter with its recommended rules, as an integrator's
 * toolchain would run it: no errors (its warnings are matters of style: a licence, tag
 * descriptions). The linter is a devDependency, run from node_modules without the network.
 */
const root = join(import.meta.dirname, '..', '..');
const REDOCLY = join(root, 'node_modules', '.bin', 'redocly');
const scratch = mkdtempSync(join(tmpdir(), 'handoff-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

const lint = async (file: string) => {
  // It exits 1 when it finds errors; the report on stdout says which.
  const { stdout } = await promisify(execFile)(REDOCLY, ['lint', file, '--format=json'], {
    cwd: scratch,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    timeout: 60_000,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const report = JSON.parse(stdout) as { totals: { errors: number }; problems: Problem[] };
  return report.problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
};

describe(`${DOCUMENT_FILE} under @redocly/cli lint`, () => {
  it('has no errors, and a copy that breaks a rule has one', async () => {
    expect(await lint(join(root, DOCUMENT_FILE))).toEqual([]);

    const broken = JSON.parse(readFileSync(join(root, DOCUMENT_FILE), 'utf8'));
    delete broken.webhooks.event.post.security;
    const brokenFile = join(scratch, 'broken.json');
    writeFileSync(brokenFile, JSON.stringify(broken));
    expect(await lint(brokenFile)).toEqual(['security-defined at #/webhooks/event/post: Every operation should have security defined on it or on the root level.']);
  });
});
