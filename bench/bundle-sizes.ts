import { build } from 'esbuild';
import { groupByEntry } from '../lib/api-functions.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from '../lib/expiry.ts';
import { DELIVER_ENTRY, DELIVERY_SWEEP_ENTRY, FAN_OUT_ENTRY } from '../lib/webhooks.ts';
import { esbuildOptionsOfStack } from '../lib/esbuild-options.ts';
import { FALLBACK_ENTRY, routeList } from '../lambdas/http/routes.ts';

/** The PDF renderer's own name, written into every PDF it makes: a bundle holding it carries pdfkit. */
const PDF_RENDERER_MARK = 'PDFKit';

/**
 * Bundles every function the stack deploys (one per handler entry, as lib/api-functions.ts groups
 * the route table, plus the fallback and the workers) with the stack's own bundling options
 * (translated from the CDK's NodejsFunction props to esbuild's) and reports the bytes, and whether
 * the bundle carries the PDF renderer (only the certificate function should).
 */
export const bundleSizes = async () => {
  const entries = [
    ...groupByEntry(routeList()).map((group) => ({ name: group.routes.length === 1 ? group.routes[0].name : group.id, entry: group.entry })),
    { name: 'fallback', entry: FALLBACK_ENTRY },
    ...Object.entries({ expire: EXPIRE_ENTRY, purge: PURGE_ENTRY, sweep: SWEEP_ENTRY, fanOut: FAN_OUT_ENTRY, deliver: DELIVER_ENTRY, deliverySweep: DELIVERY_SWEEP_ENTRY }).map(
      ([name, entry]) => ({ name, entry }),
    ),
  ];
  const sizes: Array<{ name: string; bytes: number; pdfRenderer: boolean }> = [];
  for (const { name, entry } of entries) {
    const result = await build({ ...esbuildOptionsOfStack(), entryPoints: [entry], write: false, outfile: 'index.mjs' });
    const text = result.outputFiles!.map((file) => file.text).join('');
    sizes.push({ name, bytes: result.outputFiles!.reduce((sum, file) => sum + file.contents.byteLength, 0), pdfRenderer: text.includes(PDF_RENDERER_MARK) });
  }
  return sizes;
};
