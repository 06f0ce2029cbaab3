/**
 * The bundle budget (bench/bundle-budget.ts): every function the stack deploys, bundled exactly as
 * the stack bundles it, stays at or under 250 kB, the certificate function aside; only the
 * certificate function carries the PDF renderer; and the webhook URL's function carries no phone
 * number parsing (only request creation needs it). `npm run bench` prints the same figures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_BUDGET_BYTES, bundleReport, isOverBudget } from '../../bench/bundle-budget.ts';
import { bundleModule, bundleSizes, isCertificateFunction, stackFunctions, type FunctionBundle } from '../../bench/bundle-sizes.ts';
import { CERTIFICATE_ENTRY } from '../../lambdas/http/routes.ts';
import { WORKER_TABLE_ACCESS } from '../../lambdas/access/table-access.ts';

let bundles: FunctionBundle[];

beforeAll(async () => {
  bundles = await bundleSizes();
}, 180_000);

describe('function bundles', () => {
  it('bundles every function the stack deploys', () => {
    expect(bundles.map((b) => b.name)).toEqual(stackFunctions().map((fn) => fn.name));
    // Every worker the stack deploys (each has a table access declaration) is measured too.
    expect(bundles.map((b) => b.name)).toEqual(expect.arrayContaining(Object.keys(WORKER_TABLE_ACCESS)));
    expect(bundles.filter(isCertificateFunction)).toHaveLength(1);
  });

  it(`keeps every bundle but the certificate function's within ${BUNDLE_BUDGET_BYTES / 1000} kB`, () => {
    const over = bundles.filter(isOverBudget).map((b) => `${b.name}: ${(b.bytes / 1000).toFixed(1)} kB`);
    expect(over).toEqual([]);
  });

  it('bundles the PDF renderer into the certificate function only', () => {
    expect(bundles.filter((b) => b.pdfRenderer).map((b) => b.entry)).toEqual([CERTIFICATE_ENTRY]);
  });

  it('leaves the AWS SDK to the runtime', () => {
    for (const bundle of bundles) expect(bundle.external.filter((name) => !name.startsWith('@aws-sdk/')), bundle.name).toEqual([]);
  });

  it('keeps phone number parsing out of the functions that never parse one', async () => {
    const { metafile } = await bundleModule('lambdas/http/inbound/status.ts');
    expect(Object.keys(metafile.inputs).filter((input) => input.includes('libphonenumber-js'))).toEqual([]);
  });
});

describe('bundleReport', () => {
  const bundle = (name: string, bytes: number, entry = `lambdas/http/handlers/${name}.ts`): FunctionBundle => ({ name, entry, bytes, pdfRenderer: false, external: [] });

  it('marks a bundle over the budget OVER LIMIT and says so in its last line', () => {
    const { lines, over } = bundleReport([bundle('small', 90_000), bundle('large', BUNDLE_BUDGET_BYTES + 1), bundle('certificates', 1_050_000, CERTIFICATE_ENTRY)]);
    expect(over.map((b) => b.name)).toEqual(['large']);
    expect(lines.find((line) => line.includes('large'))).toContain('OVER LIMIT');
    expect(lines.find((line) => line.includes('small'))).not.toContain('OVER LIMIT');
    expect(lines.find((line) => line.includes('certificates'))).not.toContain('OVER LIMIT');
    expect(lines.at(-1)).toMatch(/^OVER LIMIT: 1 bundle\(s\) above 250\.0 kB: large 250\.0 kB$/);
  });

  it('counts a bundle of exactly the budget as within it', () => {
    const { lines, over } = bundleReport([bundle('edge', BUNDLE_BUDGET_BYTES)]);
    expect(over).toEqual([]);
    expect(lines.at(-1)).toBe('All 1 bundles within 250.0 kB (certificate function aside); largest: edge, 250.0 kB.');
  });
});
