import { mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { groupByEntry, REPO_ROOT } from '../lib/api-functions.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from '../lib/expiry.ts';
import { DELIVER_ENTRY, DELIVERY_SWEEP_ENTRY, FAN_OUT_ENTRY } from '../lib/webhooks.ts';
import { RECONCILE_ENTRY, TICKET_CHECK_ENTRY } from '../lib/helpdesk-checks.ts';
import { API_READ_RECORDER_ENTRY } from '../lib/api-read-records.ts';
import { esbuildOptionsOfStack } from '../lib/esbuild-options.ts';
import { certificateBuildOptions } from '../lib/certificate-bundle.ts';
import { sdkClientsOfEntry } from '../lib/function-clients.ts';
import { CERTIFICATE_ENTRY, FALLBACK_ENTRY, routeList } from '../lambdas/http/routes.ts';

export interface FunctionEntry {
  /** The route's name for a function of its own, else the stack's construct id; the workers by role. */
  name: string;
  /** The handler module, relative to the repository root. */
  entry: string;
}

export interface FunctionBundle extends FunctionEntry {
  /** Every file of the function's code: index.mjs and, for the certificate function, its chunks. */
  bytes: number;
  /** index.mjs (and the chunks it imports statically): what a cold start loads before the first event. */
  mainBytes: number;
  /** Whether the bundle holds the PDF renderer (only the certificate function should)... */
  pdfRenderer: boolean;
  /** ...and whether a cold start loads it (none should: only a PDF does). */
  pdfRendererAtStart: boolean;
  /** The packages the bundle leaves to the runtime (the AWS SDK), as it imports them; Node's own modules aside. */
  external: string[];
  /** The SDK packages the function's code calls, as the stack grants it (lib/function-clients.ts): what `external` should be. */
  clients: string[];
  /** Where the bundle's index.mjs was written, when an output directory was given. */
  file?: string;
}

/** Every function the stack deploys: one per handler entry (as lib/api-functions.ts groups the route table), the fallback, the workers. */
export const stackFunctions = (): FunctionEntry[] => [
  ...groupByEntry(routeList()).map((group) => ({ name: group.routes.length === 1 ? group.routes[0].name : group.id, entry: group.entry })),
  { name: 'fallback', entry: FALLBACK_ENTRY },
  ...Object.entries({ expire: EXPIRE_ENTRY, purge: PURGE_ENTRY, sweep: SWEEP_ENTRY, fanOut: FAN_OUT_ENTRY, deliver: DELIVER_ENTRY, deliverySweep: DELIVERY_SWEEP_ENTRY, ticketCheck: TICKET_CHECK_ENTRY, reconcile: RECONCILE_ENTRY, recordApiReads: API_READ_RECORDER_ENTRY }).map(
    ([name, entry]) => ({ name, entry }),
  ),
];

/** The function with a budget of its own: it carries the PDF renderer, in a file of its own that only a PDF loads. */
export const isCertificateFunction = (fn: Pick<FunctionEntry, 'entry'>) => fn.entry === CERTIFICATE_ENTRY;

/**
 * Bundles one module with the stack's own bundling options (lib/api-functions.ts BUNDLING, as
 * lib/esbuild-options.ts translates the CDK's NodejsFunction props to esbuild's). With `outfile`
 * the bundle is written there, as the function's index.mjs would be.
 */
export const bundleModule = async (entry: string, outfile?: string) => {
  const result = await build({
    ...esbuildOptionsOfStack(),
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    write: outfile !== undefined,
    outfile: outfile ?? 'index.mjs',
    metafile: true,
  });
  const [output] = Object.values(result.metafile.outputs);
  return { bytes: output.bytes, metafile: result.metafile };
};

const externalPackages = (metafile: Metafile) => {
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) if (imported.external && !imported.path.startsWith('node:') && !builtinModules.includes(imported.path)) names.add(imported.path);
  }
  return [...names].sort();
};

const isPdfRenderer = (input: string) => input.includes('node_modules/pdfkit/');

/**
 * The output files a cold start loads: the entry (index.mjs) and the chunks it imports
 * statically, transitively; a dynamically imported chunk (the PDF renderer) only when called.
 */
const loadedAtStart = (metafile: Metafile) => {
  const outputs = metafile.outputs;
  const main = Object.keys(outputs).find((file) => path.basename(file) === 'index.mjs');
  if (!main) throw new Error('the bundle has no index.mjs');
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const imported of outputs[file].imports) if (!imported.external && imported.kind === 'import-statement') visit(imported.path);
  };
  visit(main);
  return [...loaded];
};

/**
 * Builds one function as the stack does: one file with the stack's options, or, for the
 * certificate function, its own split build (lib/certificate-bundle.ts). With `outdir` the files
 * are written there, as the function's asset holds them.
 */
const buildFunction = async (fn: FunctionEntry, outdir?: string): Promise<Metafile> => {
  if (!isCertificateFunction(fn)) return (await bundleModule(fn.entry, outdir && path.join(outdir, 'index.mjs'))).metafile;
  // Without `outdir` nothing is written; esbuild still needs a folder to name the chunks in.
  const result = await build({ ...certificateBuildOptions(outdir ?? path.join(tmpdir(), 'certificate-bundle')), write: outdir !== undefined, metafile: true });
  return result.metafile;
};

/**
 * Bundles every function the stack deploys and reports its bytes (all of them, and what a cold
 * start loads), whether it carries the PDF renderer, and the runtime packages it imports beside
 * those it should. With `outdir`, each function's files are also written to `<outdir>/<name>/`
 * (the cold-start figures import their index.mjs from there).
 */
export const bundleSizes = async ({ outdir }: { outdir?: string } = {}): Promise<FunctionBundle[]> => {
  const bundles: FunctionBundle[] = [];
  for (const fn of stackFunctions()) {
    const dir = outdir ? path.join(outdir, fn.name) : undefined;
    if (dir) mkdirSync(dir, { recursive: true });
    const metafile = await buildFunction(fn, dir);
    const outputs = Object.entries(metafile.outputs);
    const atStart = new Set(loadedAtStart(metafile));
    const holdsRenderer = ([, output]: (typeof outputs)[number]) => Object.keys(output.inputs).some(isPdfRenderer);
    bundles.push({
      ...fn,
      bytes: outputs.reduce((sum, [, output]) => sum + output.bytes, 0),
      mainBytes: outputs.filter(([file]) => atStart.has(file)).reduce((sum, [, output]) => sum + output.bytes, 0),
      pdfRenderer: outputs.some(holdsRenderer),
      pdfRendererAtStart: outputs.filter(([file]) => atStart.has(file)).some(holdsRenderer),
      external: externalPackages(metafile),
      clients: sdkClientsOfEntry(fn.entry),
      file: dir ? path.join(dir, 'index.mjs') : undefined,
    });
  }
  return bundles;
};
