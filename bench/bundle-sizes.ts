import { mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { groupByEntry, REPO_ROOT } from '../lib/api-functions.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from '../lib/expiry.ts';
import { DELIVER_ENTRY, DELIVERY_SWEEP_ENTRY, FAN_OUT_ENTRY } from '../lib/webhooks.ts';
import { RECONCILE_ENTRY, TICKET_CHECK_ENTRY } from '../lib/helpdesk-checks.ts';
import { API_READ_RECORDER_ENTRY } from '../lib/api-read-records.ts';
import { esbuildOptionsOfStack } from '../lib/esbuild-options.ts';
import { CERTIFICATE_ENTRY, FALLBACK_ENTRY, routeList } from '../lambdas/http/routes.ts';

export interface FunctionEntry {
  /** The route's name for a function of its own, else the stack's construct id; the workers by role. */
  name: string;
  /** The handler module, relative to the repository root. */
  entry: string;
}

export interface FunctionBundle extends FunctionEntry {
  bytes: number;
  /** Whether the bundle holds the PDF renderer (only the certificate function should). */
  pdfRenderer: boolean;
  /** The packages the bundle leaves to the runtime (the AWS SDK), as it imports them; Node's own modules aside. */
  external: string[];
  /** Where the bundle was written, when an output directory was given. */
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

/** The one function allowed past the bundle budget: it carries the PDF renderer and its fonts. */
export const isCertificateFunction = (fn: FunctionEntry) => fn.entry === CERTIFICATE_ENTRY;

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

/**
 * Bundles every function the stack deploys and reports its bytes, whether it carries the PDF
 * renderer, and the runtime packages it imports. With `outdir`, each bundle is also written to
 * `<outdir>/<name>/index.mjs` (the cold-start figures import them from there).
 */
export const bundleSizes = async ({ outdir }: { outdir?: string } = {}): Promise<FunctionBundle[]> => {
  const bundles: FunctionBundle[] = [];
  for (const fn of stackFunctions()) {
    const file = outdir ? path.join(outdir, fn.name, 'index.mjs') : undefined;
    if (file) mkdirSync(path.dirname(file), { recursive: true });
    const { bytes, metafile } = await bundleModule(fn.entry, file);
    const pdfRenderer = Object.keys(metafile.inputs).some((input) => input.includes('node_modules/pdfkit/'));
    bundles.push({ ...fn, bytes, pdfRenderer, external: externalPackages(metafile), file });
  }
  return bundles;
};
