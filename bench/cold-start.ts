/**
 * Cold-start figures: the time a fresh Node process takes to import each function's bundle, beside
 * a baseline bundle holding exactly the AWS SDK clients the function calls (lib/function-clients.ts),
 * as a ratio in the same run; the baseline of the DynamoDB document client alone is the floor every
 * function that uses the table pays.
 *
 * Method. Every bundle (the baselines too) is built with the stack's own bundling options, so the
 * AWS SDK stays external, as deployed, where the runtime provides it. Locally the SDK is resolved
 * from this repository's node_modules, the same way for every bundle: the bundles are written to
 * a temporary directory that holds a `node_modules` link to the repository's, so each bundle
 * loads the same SDK files by the same lookup, and the figure counts the SDK clients a function
 * imports. Each measurement is a new `node` process that times only `await import(bundle)`
 * (reading, compiling and evaluating the bundle and what it imports), not the process's own
 * start: its wall time, and the CPU time the process spent in it. In every round each function is
 * imported right after its baseline, the functions that share a baseline one after another, and a
 * first round warms the file cache and is discarded. In each round a function's CPU time is
 * divided by the median CPU time of its baseline's samples around it (BASELINE_WINDOW): the one
 * just before it and those before its neighbours that share it; its ratio is the median of its
 * rounds. CPU time, because on a shared machine the wall time of a 100 ms import swings with
 * whatever else runs (twofold at a load of 10 on 2 cores) and the work the import does much less;
 * it includes V8's helper threads, which a function's fraction of a vCPU pays for too. Still, a
 * busy machine spreads the figures: the report prints the load. Handlers build their clients on
 * first use, so the import is the init work a cold start always pays before the first event.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../lib/api-functions.ts';
import { DYNAMODB_CLIENTS } from '../lib/function-clients.ts';
import { bundleModule, bundleSizes, type FunctionBundle } from './bundle-sizes.ts';

const run = promisify(execFile);

/** The cold-start target: each function's import within this multiple of its baseline's. */
export const COLD_START_TARGET = 1.15;

/** A baseline bundle's source: the SDK packages of a function, imported whole as the function's bundle imports them, and nothing else. */
const baselineSource = (clients: readonly string[]) => clients.map((name, i) => `export * as client${i} from '${name}';`).join('\n') + '\n';

/** Run in each fresh process: the wall and CPU milliseconds `import()` of the bundle takes, as JSON. */
const PROBE = [
  'const cpu = process.cpuUsage(); const started = performance.now(); await import(process.argv[1]);',
  'const wallMs = performance.now() - started; const used = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify({ wallMs, cpuMs: (used.user + used.system) / 1000 }));',
].join(' ');

interface ImportTime {
  wallMs: number;
  cpuMs: number;
}

export interface ColdStart {
  name: string;
  bytes: number;
  /** The SDK packages the function calls: what its baseline holds (none: the DynamoDB floor stands in). */
  clients: string[];
  /** Medians over the rounds: the import's wall and CPU time, and the baseline CPU time it was divided by. */
  wallMs: number;
  cpuMs: number;
  baselineCpuMs: number;
  /** The median over the rounds of the function's CPU time over its baseline's around it. */
  ratio: number;
  /** The CPU median over the DynamoDB floor's, same run. */
  floorRatio: number;
}

export interface ColdStartResult {
  /** The DynamoDB document client alone: medians of its wall and CPU time over the run. */
  floor: ImportTime & { bytes: number };
  runs: number;
  functions: ColdStart[];
  /** The machine's one-minute load average when the measurement started and ended. */
  loadBefore: number;
  loadAfter: number;
}

const importTime = async (file: string): Promise<ImportTime> => {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
    // The same environment for every bundle; no AWS credentials are needed to import.
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-2', LOG_LEVEL: 'ERROR', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return JSON.parse(stdout) as ImportTime;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * How far either side of a function, within its round, the samples of its baseline count towards
 * the baseline it is divided by: near enough in time to share the machine's load of the moment,
 * many enough (the functions that share a baseline are taken one after another) that one noisy
 * sample does not decide.
 */
const BASELINE_WINDOW = 8;

/** A set of clients as one key; a function that calls none (the pages, the fallback) is set beside the DynamoDB floor. */
const clientsKey = (clients: readonly string[]) => (clients.length ? clients.join(' ') : DYNAMODB_CLIENTS.join(' '));

/** Writes one baseline bundle per set of clients the functions call (the DynamoDB floor among them) into `dir`. */
const buildBaselines = async (dir: string, clientSets: readonly (readonly string[])[]) => {
  const baselines = new Map<string, { file: string; bytes: number }>();
  for (const clients of [DYNAMODB_CLIENTS, ...clientSets]) {
    const key = clientsKey(clients);
    if (baselines.has(key)) continue;
    const folder = path.join(dir, String(baselines.size));
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'source.ts'), baselineSource(key.split(' ')));
    const file = path.join(folder, 'index.mjs');
    const { bytes } = await bundleModule(path.join(folder, 'source.ts'), file);
    baselines.set(key, { file, bytes });
  }
  return baselines;
};

/**
 * Builds every function's bundle and the baselines into a temporary directory and measures each
 * function's import, right after its baseline's, `runs` times (plus one discarded warm-up round).
 * Returns the bundles too, so the sizes printed beside the times are those of the files measured.
 */
export const measureColdStarts = async ({ runs = 11 }: { runs?: number } = {}): Promise<{ bundles: FunctionBundle[]; result: ColdStartResult }> => {
  const workdir = mkdtempSync(path.join(tmpdir(), 'handoff-cold-start-'));
  try {
    // One lookup for every bundle: <workdir>/node_modules is the repository's.
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(workdir, 'node_modules'), 'dir');
    const bundles = await bundleSizes({ outdir: path.join(workdir, 'functions') });
    const baselines = await buildBaselines(path.join(workdir, 'baselines'), bundles.map((b) => b.clients));
    const floor = baselines.get(clientsKey(DYNAMODB_CLIENTS))!;

    const loadBefore = loadavg()[0];
    // Functions that share a baseline are taken one after another, so each has several of its baseline's samples around it.
    const order = [...bundles].sort((a, b) => clientsKey(a.clients).localeCompare(clientsKey(b.clients)));
    /** Each round's imports in the order taken: a function's, beside its baseline's just before it. */
    const rounds: { name: string; key: string; own: ImportTime; baseline: ImportTime }[][] = [];
    for (let round = 0; round <= runs; round++) {
      const taken = [];
      for (const bundle of order) {
        const key = clientsKey(bundle.clients);
        const baseline = await importTime(baselines.get(key)!.file);
        taken.push({ name: bundle.name, key, baseline, own: await importTime(bundle.file!) });
      }
      if (round > 0) rounds.push(taken);
    }
    const loadAfter = loadavg()[0];

    const floorSamples = rounds.flat().filter((pair) => pair.key === clientsKey(DYNAMODB_CLIENTS)).map((pair) => pair.baseline);
    const floorResult = { wallMs: median(floorSamples.map((sample) => sample.wallMs)), cpuMs: median(floorSamples.map((sample) => sample.cpuMs)), bytes: floor.bytes };
    const functions = bundles.map((b) => {
      const position = order.indexOf(b);
      const perRound = rounds.map((taken) => {
        const { key, own } = taken[position];
        const around = taken.slice(Math.max(0, position - BASELINE_WINDOW), position + BASELINE_WINDOW + 1).filter((pair) => pair.key === key);
        const baselineCpuMs = median(around.map((pair) => pair.baseline.cpuMs));
        return { own, baselineCpuMs, ratio: own.cpuMs / baselineCpuMs };
      });
      const cpuMs = median(perRound.map((r) => r.own.cpuMs));
      return {
        name: b.name,
        bytes: b.bytes,
        clients: b.clients,
        wallMs: median(perRound.map((r) => r.own.wallMs)),
        cpuMs,
        baselineCpuMs: median(perRound.map((r) => r.baselineCpuMs)),
        ratio: median(perRound.map((r) => r.ratio)),
        floorRatio: cpuMs / floorResult.cpuMs,
      };
    });
    return { bundles, result: { floor: floorResult, runs, functions, loadBefore, loadAfter } };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
};

const shortClients = (clients: readonly string[]) => (clients.length ? clients.map((name) => name.replace(/^@aws-sdk\/(client-)?/, '')).join(' ') : '(none: the DynamoDB floor)');

export const isColdStartMiss = (fn: Pick<ColdStart, 'ratio'>) => fn.ratio > COLD_START_TARGET;

const ms = (value: number) => `${value.toFixed(1)} ms`;
const times = (value: number) => `${value.toFixed(2)}x`;

/** The table, each function against its target with MISS where it is over, and a closing verdict line. */
export const coldStartReport = ({ floor, runs, functions, loadBefore, loadAfter }: ColdStartResult): string[] => {
  const width = Math.max(...functions.map((f) => f.name.length), 'DynamoDB floor'.length);
  const clientsWidth = Math.max(...functions.map((f) => shortClients(f.clients).length), 'baseline clients'.length);
  const misses = functions.filter(isColdStartMiss);
  const highest = functions.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const row = (name: string, wall: string, cpu: string, clients: string, baseline: string, ratio: string, floorRatio: string) =>
    `  ${name.padEnd(width)}  ${wall.padStart(9)}  ${cpu.padStart(9)}  ${clients.padEnd(clientsWidth)}  ${baseline.padStart(9)}  ${ratio.padStart(10)}  ${floorRatio.padStart(7)}`;
  return [
    `\nCold start: the time a fresh Node ${process.versions.node} process takes to import each bundle (wall and CPU time, medians of ${runs} runs), beside a`,
    'baseline bundle holding exactly the AWS SDK clients the function calls, imported right before it in each run. The SDK is external, as deployed,',
    `and resolved from node_modules alike for every bundle. Target: CPU time within ${times(COLD_START_TARGET)} of the baseline's (x baseline: the median of the runs' ratios).`,
    `Load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (${cpus().length} cores): a busy machine spreads the figures.\n`,
    row('function', 'import', 'CPU', 'baseline clients', 'baseline', 'x baseline', 'x floor'),
    `${row('DynamoDB floor', ms(floor.wallMs), ms(floor.cpuMs), 'dynamodb lib-dynamodb', '', '', '1.00x')}  (${(floor.bytes / 1000).toFixed(1)} kB)`,
    ...functions.map(
      (f) =>
        `${row(f.name, ms(f.wallMs), ms(f.cpuMs), shortClients(f.clients), ms(f.baselineCpuMs), times(f.ratio), times(f.floorRatio))}${isColdStartMiss(f) ? `  MISS (target ${times(COLD_START_TARGET)})` : ''}`,
    ),
    misses.length
      ? `\nCold-start target MISSED by ${misses.length} of ${functions.length} functions: ${misses.map((f) => `${f.name} ${times(f.ratio)}`).join(', ')}`
      : `\nCold-start target met: all ${functions.length} functions within ${times(COLD_START_TARGET)} of their baselines (highest: ${highest.name}, ${times(highest.ratio)}).`,
  ];
};
