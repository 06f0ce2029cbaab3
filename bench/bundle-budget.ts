import { isCertificateFunction, type FunctionBundle } from './bundle-sizes.ts';

/**
 * Every function's bundle stays at or under 250 kB (250,000 bytes), the certificate function
 * aside (the PDF renderer and its fonts are most of its size). Init time grows with the code a
 * function loads, and init is billed: the published Node figures put a 260 kB bundle near 100 ms
 * of init against about 1 s for 1.5 MB.
 */
export const BUNDLE_BUDGET_BYTES = 250_000;

export const isOverBudget = (bundle: FunctionBundle) => !isCertificateFunction(bundle) && bundle.bytes > BUNDLE_BUDGET_BYTES;

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The runtime packages a bundle imports, short: `client-dynamodb` for `@aws-sdk/client-dynamodb`. */
const shortExternal = (name: string) => name.replace(/^@aws-sdk\//, '');

/** One line per bundle, an `OVER LIMIT` mark on each over the budget, then a closing verdict line. */
export const bundleReport = (bundles: FunctionBundle[]): { lines: string[]; over: FunctionBundle[] } => {
  const over = bundles.filter(isOverBudget);
  const width = Math.max(...bundles.map((b) => b.name.length));
  const lines = bundles.map((b) => {
    const marks = [
      isOverBudget(b) ? `OVER LIMIT (${kB(BUNDLE_BUDGET_BYTES)})` : '',
      isCertificateFunction(b) ? 'certificate function, outside the budget' : '',
      b.pdfRenderer && !isCertificateFunction(b) ? 'carries the PDF renderer' : '',
    ].filter(Boolean);
    return `  ${b.name.padEnd(width)}  ${kB(b.bytes).padStart(10)}  ${b.external.map(shortExternal).join(' ') || '-'}${marks.length ? `  ${marks.join('; ')}` : ''}`;
  });
  const largest = bundles.filter((b) => !isCertificateFunction(b)).reduce((a, b) => (b.bytes > a.bytes ? b : a));
  lines.push(
    over.length
      ? `OVER LIMIT: ${over.length} bundle(s) above ${kB(BUNDLE_BUDGET_BYTES)}: ${over.map((b) => `${b.name} ${kB(b.bytes)}`).join(', ')}`
      : `All ${bundles.length - bundles.filter(isCertificateFunction).length} bundles within ${kB(BUNDLE_BUDGET_BYTES)} (certificate function aside); largest: ${largest.name}, ${kB(largest.bytes)}.`,
  );
  return { lines, over };
};
