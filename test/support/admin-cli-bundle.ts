/**
 * The operator CLI built once for a test run: `bin/admin.ts` bundled by esbuild (its npm packages
 * left to node_modules, as under tsx) into `.test-build/bin/`, two levels below the
 * repository root like the source, so paths it takes from its own location resolve alike.
 *
 * Why: under tsx every run of the CLI transforms and resolves its TypeScript through loader hooks,
 * about 1.3 s of CPU a run against 0.4 s for the bundle, and the suite runs the CLI hundreds of
 * times. The code is the same; `npm run admin` itself (tsx) is still run by
 * test/e2e/docs-shell-examples.test.ts, which checks that both answer alike.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');

/** The command line `npm run admin` runs, as package.json says it: kept in step by the docs examples' test. */
export const ADMIN_SCRIPT = 'tsx bin/admin.ts';

/** Builds the bundle under a name of this process's own (two runs may share a checkout); returns its path. */
export const buildAdminCliBundle = async (root = ROOT): Promise<string> => {
  const outfile = join(root, '.test-build', 'bin', `admin-${process.pid}.mjs`);
  mkdirSync(join(root, '.test-build', 'bin'), { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: ['bin/admin.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
};
