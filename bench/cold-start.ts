/**
 * Cold-start figures: the time a fresh Node process takes to import each function's bundle,
 * beside a baseline bundle holding only the DynamoDB document client, as a ratio in the same run.
 *
 * Method. Every bundle (the baseline too) is built with the stack's own bundling options, so the
 * AWS SDK stays external, as deployed, where the runtime provides it. Locally the SDK is resolved
 * from this repository's node_modules, the same way for every bundle: the bundles are written to
 * a temporary directory that holds a `node_modules` link to the repository's, so each bundle
 * loads the same SDK files by the same lookup, and the figure counts the SDK clients a function
 * imports. Each measurement is a new `node` process that times only `await import(bundle)`
 * (reading, compiling and evaluating the bundle and what it imports), not the process's own
 * start. The bundles are taken in rounds, the baseline in every round, so a busy moment on the
 * machine falls on all of them alike; a first round warms the file cache and is discarded; each
 * figure is the median of the rest. Handlers build their clients on first use, so the import is
 * the init work a cold start always pays before the first event.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../lib/api-functions.ts';
import { bundleModule, bundleSizes, type FunctionBundle } from './bundle-sizes.ts';

const run = promisify(execFile);

/** The baseline: the DynamoDB document client alone, as every API function uses it. */
const BASELINE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export { DynamoDBClient, DynamoDBDocumentClient };
`;

/** Run in each fresh process: the milliseconds `import()` of the bundle takes. */
const PROBE = 'const started = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - started));';

export interface ColdStart {
  name: string;
  bytes: number;
  medianMs: number;
  /** The median over the baseline's median, same run. */
  ratio: number;
}

export interface ColdStartResult {
  baselineMs: number;
  baselineBytes: number;
  runs: number;
  functions: ColdStart[];
}

const importMs = async (file: string) => {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
    // The same environment for every bundle; no AWS credentials are needed to import.
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-2', LOG_LEVEL: 'ERROR', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return Number(stdout);
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Builds every function's bundle and the baseline into a temporary directory and measures each
 * import `runs` times (plus one discarded warm-up round). Returns the bundles too, so the sizes
 * printed beside the times are those of the files measured.
 */
export const measureColdStarts = async ({ runs = 7 }: { runs?: number } = {}): Promise<{ bundles: FunctionBundle[]; result: ColdStartResult }> => {
  const workdir = mkdtempSync(path.join(tmpdir(), 'handoff-cold-start-'));
  try {
    // One lookup for every bundle: <workdir>/node_modules is the repository's.
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(workdir, 'node_modules'), 'dir');
    const bundles = await bundleSizes({ outdir: path.join(workdir, 'functions') });
    mkdirSync(path.join(workdir, 'baseline'));
    const baselineSource = path.join(workdir, 'baseline', 'source.ts');
    writeFileSync(baselineSource, BASELINE_SOURCE);
    const baselineFile = path.join(workdir, 'baseline', 'index.mjs');
    const { bytes: baselineBytes } = await bundleModule(baselineSource, baselineFile);

    const targets = [{ name: '(baseline)', file: baselineFile }, ...bundles.map((b) => ({ name: b.name, file: b.file! }))];
    const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round <= runs; round++) {
      for (const target of targets) {
        const ms = await importMs(target.file);
        if (round > 0) samples.get(target.name)!.push(ms);
      }
    }
    const baselineMs = median(samples.get('(baseline)')!);
    const functions = bundles.map((b) => {
      const medianMs = median(samples.get(b.name)!);
      return { name: b.name, bytes: b.bytes, medianMs, ratio: medianMs / baselineMs };
    });
    return { bundles, result: { baselineMs, baselineBytes, runs, functions } };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
};

export const coldStartReport = ({ baselineMs, baselineBytes, runs, functions }: ColdStartResult): string[] => {
  const width = Math.max(...functions.map((f) => f.name.length), 'baseline'.length);
  return [
    `\nCold start: the time a fresh Node ${process.versions.node} process takes to import each bundle (median of ${runs} runs), beside a`,
    'bundle of only the DynamoDB document client, same run. The AWS SDK is external, as deployed, and resolved from node_modules alike for every bundle.\n',
    `  ${'function'.padEnd(width)}  ${'import'.padStart(9)}  ${'x baseline'.padStart(10)}`,
    `  ${'baseline'.padEnd(width)}  ${`${baselineMs.toFixed(1)} ms`.padStart(9)}  ${'1.00x'.padStart(10)}  (${(baselineBytes / 1000).toFixed(1)} kB)`,
    ...functions.map((f) => `  ${f.name.padEnd(width)}  ${`${f.medianMs.toFixed(1)} ms`.padStart(9)}  ${`${f.ratio.toFixed(2)}x`.padStart(10)}`),
  ];
};
