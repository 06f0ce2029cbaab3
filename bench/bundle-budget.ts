import { isCertificateFunction, type FunctionBundle } from './bundle-sizes.ts';

/**
 * Every function's bundle stays at or under 250 kB (250,000 bytes), and so does what a cold start
 * loads of the certificate function. Init time grows with the code a function loads, and init is
 * billed: the published Node figures put a 260 kB bundle near 100 ms of init against about 1 s
 * for 1.5 MB.
 */
export const BUNDLE_BUDGET_BYTES = 250_000;

/**
 * The certificate function, PDF renderer included: pdfkit and the standard fonts' metrics, in a
 * file of their own that only a PDF loads (lib/certificate-bundle.ts).
 */
export const CERTIFICATE_BUNDLE_BUDGET_BYTES = 500_000;

export const budgetOf = (bundle: Pick<FunctionBundle, 'entry'>) => (isCertificateFunction(bundle) ? CERTIFICATE_BUNDLE_BUDGET_BYTES : BUNDLE_BUDGET_BYTES);

export const isOverBudget = (bundle: FunctionBundle) => bundle.bytes > budgetOf(bundle) || bundle.mainBytes > BUNDLE_BUDGET_BYTES;

/** A bundle's SDK packages against those its function calls: an extra one costs every cold start; a missing one fails the call deployed. */
export const clientMismatch = (bundle: Pick<FunctionBundle, 'external' | 'clients'>) => ({
  extra: bundle.external.filter((name) => !bundle.clients.includes(name)),
  missing: bundle.clients.filter((name) => !bundle.external.includes(name)),
});

/** The PDF renderer where it does not belong: in any function but the certificate one, or loaded by a cold start. */
const misplacedRenderer = (bundle: FunctionBundle) => bundle.pdfRendererAtStart || (bundle.pdfRenderer && !isCertificateFunction(bundle));

const isWired = (bundle: FunctionBundle) => {
  const { extra, missing } = clientMismatch(bundle);
  return extra.length === 0 && missing.length === 0 && !misplacedRenderer(bundle);
};

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The runtime packages a bundle imports, short: `client-dynamodb` for `@aws-sdk/client-dynamodb`. */
const shortExternal = (name: string) => name.replace(/^@aws-sdk\//, '');

const marksOf = (bundle: FunctionBundle) => {
  const { extra, missing } = clientMismatch(bundle);
  return [
    isOverBudget(bundle) ? `OVER LIMIT (${kB(budgetOf(bundle))}${budgetOf(bundle) !== BUNDLE_BUDGET_BYTES ? `, ${kB(BUNDLE_BUDGET_BYTES)} at a cold start` : ''})` : '',
    isCertificateFunction(bundle) ? `certificate function (budget ${kB(CERTIFICATE_BUNDLE_BUDGET_BYTES)}): ${kB(bundle.mainBytes)} at a cold start, the PDF renderer in a file of its own` : '',
    extra.length ? `IMPORTS CLIENTS IT NEVER CALLS: ${extra.map(shortExternal).join(' ')}` : '',
    missing.length ? `MISSING CLIENTS IT CALLS: ${missing.map(shortExternal).join(' ')}` : '',
    bundle.pdfRenderer && !isCertificateFunction(bundle) ? 'CARRIES THE PDF RENDERER' : '',
    bundle.pdfRendererAtStart ? 'LOADS THE PDF RENDERER AT A COLD START' : '',
  ].filter(Boolean);
};

/**
 * One line per bundle (its bytes and the SDK packages it imports), a mark on each over its budget,
 * importing an SDK client other than those its function calls, or carrying the PDF renderer where
 * it does not belong; then a closing verdict line. `over` and `miswired` list the offenders.
 */
export const bundleReport = (bundles: FunctionBundle[]): { lines: string[]; over: FunctionBundle[]; miswired: FunctionBundle[] } => {
  const over = bundles.filter(isOverBudget);
  const miswired = bundles.filter((bundle) => !isWired(bundle));
  const width = Math.max(...bundles.map((b) => b.name.length));
  const lines = bundles.map((b) => {
    const marks = marksOf(b);
    return `  ${b.name.padEnd(width)}  ${kB(b.bytes).padStart(10)}  ${b.external.map(shortExternal).join(' ') || '-'}${marks.length ? `  ${marks.join('; ')}` : ''}`;
  });
  const others = bundles.filter((b) => !isCertificateFunction(b));
  const largest = others.length ? others.reduce((a, b) => (b.bytes > a.bytes ? b : a)) : undefined;
  lines.push(
    over.length
      ? `OVER LIMIT: ${over.length} bundle(s) above their budget: ${over.map((b) => `${b.name} ${kB(b.bytes)}`).join(', ')}`
      : `All ${others.length} bundles within ${kB(BUNDLE_BUDGET_BYTES)}${largest ? ` (largest: ${largest.name}, ${kB(largest.bytes)})` : ''}; the certificate function within ${kB(CERTIFICATE_BUNDLE_BUDGET_BYTES)}.`,
  );
  if (miswired.length) lines.push(`MISWIRED: ${miswired.length} bundle(s) import SDK clients other than their function calls, or the PDF renderer where it does not belong: ${miswired.map((b) => b.name).join(', ')}`);
  else lines.push(`Every bundle imports exactly the SDK clients its function calls (as the stack grants them, lib/function-clients.ts).`);
  return { lines, over, miswired };
};
