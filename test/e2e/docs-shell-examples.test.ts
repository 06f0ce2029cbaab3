/**
 * Every shell example in README.md and docs/*.md runs as written against `npm start`.
 *
 * How the Markdown says what an example is for (so the skip list is visible where the example is):
 * - A block fenced ```sh, ```bash or ```shell is a shell example. An untagged block that starts
 *   like a command fails this test: tag it.
 * - `<!-- deployed-only -->` on the line before the fence: an example for a deployed table, stack or
 *   URL (`--table`, `cdk`, `aws`). Not run; each must name something deployed, and they stay few.
 * - `<!-- not-run: why -->` on the line before the fence: one of NOT_RUN below, listed here by its
 *   text, so that another is a deliberate change to this test.
 *
 * How they run, as a reader follows the docs:
 * - The service is `npm start` (bin/local.ts) in a process of its own, on a free loopback port,
 *   over a temporary data folder; the README's `. .data/demo.env` sets the variables the examples
 *   use (it runs as an example, and before every other one, as a reader's shell keeps them).
 * - In reading order (README.md, then docs/ by name), each in a fresh `bash -e -o pipefail`, in a
 *   scratch clone of the repository whose `.data` is the service's: what one example writes
 *   (certificate.json) the next reads, and what one changes (a preset) the next sees. `eval` of
 *   nothing fails, so `eval "$(npm run -s admin -- ... --env)"` fails when its command does.
 * - What a reader has that no example can make (WEBHOOK, SHARE_ID, ZENDESK_*, the certificate
 *   downloaded in the first handoff) comes from docs-reader-fixtures.ts, on loopback.
 * - Only loopback: curl goes through a proxy on a closed loopback port for any other host, and npm
 *   works offline.
 * - `npm run admin` runs the run's bundle of the CLI instead of tsx (npm-admin-shim.ts), which saves
 *   about a second a command; one test runs the real `npm run admin` and compares the two.
 * - An example passes when bash exits 0 and no JSON it printed carries a `problem` or `ok: false`
 *   (the inbound URLs answer 202 with the reason, check-integration prints a failed read).
 * - At the end, the service's tables hold none of the secrets the examples were shown in plain text.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../lambdas/local/free-port.ts';
import { stopOrphanedDynamo } from '../../lambdas/local/orphaned-dynamo.ts';
import { startReaderFixtures } from '../support/docs-reader-fixtures.ts';
import { startLocalProcess, stopProcess, type LocalProcess } from '../support/local-process.ts';
import { documentationBlocks, isShellBlock, placeOf, type FencedBlock } from '../support/markdown-shell-blocks.ts';
import { scratchClone } from '../support/scratch-clone.ts';
import { ADMIN_SCRIPT } from '../support/admin-cli-bundle.ts';
import { npmAdminShim } from '../support/npm-admin-shim.ts';
import { secretsInMessage, ShownSecrets } from '../support/secret-scan.ts';
import { jsonObjectsIn, secretsInShellOutput } from '../support/shell-output-secrets.ts';
import { scanTablesForPlainSecrets } from '../support/table-secret-scan.ts';
import { joinRunningEngine } from '../../lambdas/local/engine-access.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The examples not run, by their text, and why. */
const NOT_RUN = new Map([
  ['npm ci && npm start', 'npm start itself: this test starts the service as it does'],
  ['npm ci && npm test', 'the whole suite, this test among it'],
  ['npm install openapi-fetch && npm install -D openapi-typescript', "installs from the registry into the reader's own project"],
]);
/** What makes an example one for a deployed stack: a deployed table, the CDK, the AWS CLI. */
const DEPLOYED = /--table\b|\bnpx cdk\b|\baws [a-z]/;
const MAX_DEPLOYED = 8;
/** The README's block that loads the variables of the running service. */
const LOAD_VARIABLES = '. .data/demo.env';
const LOOKS_LIKE_A_COMMAND = /^(\$ |npm |npx |curl |node |bash |sh )/;
/** Makes `eval "$(failed command)"` fail instead of running nothing. */
const EVAL_OF_NOTHING_FAILS = 'eval() { if [ -z "$*" ]; then echo "eval of nothing: the command that should have printed it failed" >&2; return 1; fi; builtin eval "$@"; }';
const EXAMPLE_TIMEOUT_MS = 180_000;

const blocks = documentationBlocks(ROOT);
const shellBlocks = blocks.filter(isShellBlock);
const runnable = shellBlocks.filter((block) => block.marker === null);

const dataDir = mkdtempSync(join(tmpdir(), 'handoff-docs-examples-'));
const scratch = scratchClone(ROOT, dataDir);
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; scripts: Record<string, string> };
const npmShim = npmAdminShim(inject('adminCli'), `${packageJson.name}@${packageJson.version}`, ADMIN_SCRIPT);
const running: ChildProcess[] = [];
let service: LocalProcess;
let fixtures: Awaited<ReturnType<typeof startReaderFixtures>>;
let environment: NodeJS.ProcessEnv;
const shown: string[] = [];

const runBash = (script: string, env = environment) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: scratch.dir, env, timeout: EXAMPLE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** What an answer printed says went wrong, though the command succeeded. */
const troubleIn = (output: string) =>
  jsonObjectsIn(output).filter((value) => {
    const object = value as { problem?: unknown; ok?: unknown };
    return (object.problem !== undefined && object.problem !== null) || object.ok === false;
  });

beforeAll(async () => {
  service = await startLocalProcess(dataDir, running);
  const closedPort = await freePort();
  const appUrl = service.baseUrl.replace(/\/v1$/, '');
  fixtures = await startReaderFixtures({ appUrl, baseUrl: service.baseUrl, key: service.key, outboxDir: join(dataDir, 'outbox') }, scratch.dir, 'technician@example.com');
  const proxy = `http://127.0.0.1:${closedPort}`;
  environment = {
    ...process.env,
    ...fixtures.env,
    // The same folder as the scratch clone's .data: set too, so nothing could reach the repository's own.
    DATA_DIR: dataDir,
    http_proxy: proxy,
    https_proxy: proxy,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    no_proxy: '127.0.0.1,localhost',
    NO_PROXY: '127.0.0.1,localhost',
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    PATH: `${npmShim.dir}:${process.env.PATH}`,
  };
  for (const name of ['PORT', 'APP', 'BASE', 'KEY', 'ORG', 'CLIENT', 'INTEGRATION', 'WEBHOOK_URL', 'TRIGGER_URL']) delete environment[name];
  shown.push(service.key, ...fixtures.secrets);
}, 180_000);

afterAll(async () => {
  await fixtures?.close();
  for (const child of running) await stopProcess(child, 'SIGINT');
  // A run that failed midway may have left its DynamoDB Local: stop it.
  await stopOrphanedDynamo(dataDir);
  scratch.remove();
  npmShim.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the shell examples of README.md and docs/', () => {
  it('are tagged, and the few not run are marked and each is what its mark says', () => {
    const untagged = blocks.filter((block) => block.language === '' && LOOKS_LIKE_A_COMMAND.test(block.text.trimStart()));
    expect(untagged.map(placeOf), 'shell commands in a block without a language: fence them ```sh').toEqual([]);
    expect(shellBlocks.filter((block) => block.marker?.kind === 'other').map(placeOf), 'a comment before a fence is deployed-only or not-run: why').toEqual([]);

    const deployed = shellBlocks.filter((block) => block.marker?.kind === 'deployed-only');
    for (const block of deployed) expect(block.text, `${placeOf(block)} is marked deployed-only`).toMatch(DEPLOYED);
    expect(deployed.length).toBeLessThanOrEqual(MAX_DEPLOYED);

    const notRun = shellBlocks.filter((block) => block.marker?.kind === 'not-run');
    expect(notRun.map((block) => block.text.trim()).sort()).toEqual([...NOT_RUN.keys()].sort());
    // A deployed example left unmarked runs below against the local service, and fails there.
    expect(runnable.filter((block) => block.text.trim() === LOAD_VARIABLES).map((block) => block.file)).toEqual(['README.md']);
    console.log(
      [
        `Shell examples: ${shellBlocks.length}; run: ${runnable.length}; not run: ${deployed.length + notRun.length}`,
        ...deployed.map((block) => `  ${placeOf(block)}: deployed-only`),
        ...notRun.map((block) => `  ${placeOf(block)}: ${NOT_RUN.get(block.text.trim())}`),
      ].join('\n'),
    );
  });

  it('run `npm run admin` as npm does: the real npm and tsx print what the bundle the examples use prints', async () => {
    expect(packageJson.scripts.admin).toBe(ADMIN_SCRIPT);
    const script = `${LOAD_VARIABLES}\nnpm run -s admin -- list-orgs --json\nnpm run admin -- show-org --org "$ORG"`;
    const real = await runBash(script, { ...environment, PATH: process.env.PATH });
    const shimmed = await runBash(script);
    expect(real.code, real.stderr).toBe(0);
    expect({ code: shimmed.code, stdout: shimmed.stdout }).toEqual({ code: real.code, stdout: real.stdout });
    expect(real.stdout).toContain(`> ${ADMIN_SCRIPT} show-org --org`);
  }, EXAMPLE_TIMEOUT_MS);

  it.each(runnable.map((block) => [placeOf(block), block] as [string, FencedBlock]))(
    '%s runs green against npm start',
    async (_place, block) => {
      const ran = await runBash([EVAL_OF_NOTHING_FAILS, LOAD_VARIABLES, block.text].join('\n'));
      shown.push(...secretsInShellOutput(`${ran.stdout}\n${ran.stderr}`));
      const said = `${block.text}\n--- exit ${ran.code}; stdout:\n${ran.stdout.slice(-4000)}\n--- stderr:\n${ran.stderr.slice(-4000)}`;
      expect(ran.code, said).toBe(0);
      expect(troubleIn(ran.stdout), said).toEqual([]);
    },
    EXAMPLE_TIMEOUT_MS,
  );

  it('leaves no secret they were shown in plain text in the service\'s tables', async () => {
    const outbox = join(dataDir, 'outbox');
    const messages = readdirSync(outbox)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(outbox, name), 'utf8')) as { subject?: string; text?: string });
    const secrets = new ShownSecrets([...shown, ...messages.flatMap((message) => secretsInMessage(`${message.subject ?? ''}\n${message.text ?? ''}`))]);
    const { dynamoEndpoint } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { dynamoEndpoint: string };
    joinRunningEngine(join(dataDir, 'dynamodb'));
    const { findings, items } = await scanTablesForPlainSecrets(dynamoEndpoint, secrets);
    expect(items).toBeGreaterThan(0);
    expect(findings).toEqual([]);
  }, 60_000);
});
