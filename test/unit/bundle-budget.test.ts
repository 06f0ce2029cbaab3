/**
 * The bundle budget (bench/bundle-budget.ts): every function the stack deploys, bundled exactly as
 * the stack bundles it, stays at or under 250 kB, the certificate function at or under 500 kB with
 * the PDF renderer in a file of its own that a cold start does not load; every bundle imports
 * exactly the AWS SDK clients its function calls (lib/function-clients.ts), so a function that
 * only uses DynamoDB loads no other client; and the webhook URL's function carries no phone number
 * parsing (only request creation needs it). `npm run bench` prints the same figures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_BUDGET_BYTES, CERTIFICATE_BUNDLE_BUDGET_BYTES, bundleReport, clientMismatch, isOverBudget } from '../../bench/bundle-budget.ts';
import { bundleModule, bundleSizes, isCertificateFunction, stackFunctions, type FunctionBundle } from '../../bench/bundle-sizes.ts';
import { DYNAMODB_CLIENTS } from '../../lib/function-clients.ts';
import { CERTIFICATE_ENTRY } from '../../lambdas/http/routes.ts';
import { WORKER_TABLE_ACCESS } from '../../lambdas/access/table-access.ts';

let bundles: FunctionBundle[];

beforeAll(async () => {
  bundles = await bundleSizes();
}, 180_000);

const named = (name: string) => bundles.find((b) => b.name === name)!;

describe('function bundles', () => {
  it('bundles every function the stack deploys', () => {
    expect(bundles.map((b) => b.name)).toEqual(stackFunctions().map((fn) => fn.name));
    // Every worker the stack deploys (each has a table access declaration) is measured too.
    expect(bundles.map((b) => b.name)).toEqual(expect.arrayContaining(Object.keys(WORKER_TABLE_ACCESS)));
    expect(bundles.filter(isCertificateFunction)).toHaveLength(1);
  });

  it(`keeps every bundle within ${BUNDLE_BUDGET_BYTES / 1000} kB, the certificate function's within ${CERTIFICATE_BUNDLE_BUDGET_BYTES / 1000} kB`, () => {
    const over = bundles.filter(isOverBudget).map((b) => `${b.name}: ${(b.bytes / 1000).toFixed(1)} kB`);
    expect(over).toEqual([]);
  });

  it('imports exactly the AWS SDK clients each function calls, as the stack grants them', () => {
    const miswired = bundles.map((b) => ({ name: b.name, ...clientMismatch(b) })).filter((b) => b.extra.length > 0 || b.missing.length > 0);
    expect(miswired).toEqual([]);
  });

  it('loads only the DynamoDB document client in a function that only uses DynamoDB', () => {
    const dynamoOnly = bundles.filter((b) => b.clients.join() === [...DYNAMODB_CLIENTS].sort().join());
    expect(dynamoOnly.map((b) => b.name)).toEqual(expect.arrayContaining(['ping', 'getRequest', 'subjectRequest', 'appMe', 'expire', 'recordApiReads']));
    for (const bundle of dynamoOnly) expect(bundle.external, bundle.name).toEqual([...DYNAMODB_CLIENTS].sort());
  });

  it('bundles the PDF renderer into the certificate function only, in a file a cold start does not load', () => {
    expect(bundles.filter((b) => b.pdfRenderer).map((b) => b.entry)).toEqual([CERTIFICATE_ENTRY]);
    expect(bundles.filter((b) => b.pdfRendererAtStart).map((b) => b.name)).toEqual([]);
    const certificate = bundles.find(isCertificateFunction)!;
    expect(certificate.bytes).toBeLessThanOrEqual(CERTIFICATE_BUNDLE_BUDGET_BYTES);
    expect(certificate.mainBytes).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    expect(certificate.mainBytes).toBeLessThan(certificate.bytes);
  });

  it('leaves the AWS SDK to the runtime', () => {
    for (const bundle of bundles) expect(bundle.external.filter((name) => !name.startsWith('@aws-sdk/')), bundle.name).toEqual([]);
  });

  it('keeps phone number parsing out of the functions that never parse one', async () => {
    const { metafile } = await bundleModule('lambdas/http/inbound/status.ts');
    expect(Object.keys(metafile.inputs).filter((input) => input.includes('libphonenumber-js'))).toEqual([]);
  });

  it('names a function that sends SMS among those loading SNS, and only those', () => {
    expect(named('createRequest').external).toContain('@aws-sdk/client-sns');
    expect(named('subjectEmailCode').external).toEqual(expect.arrayContaining(['@aws-sdk/client-sesv2', '@aws-sdk/client-kms']));
    expect(named('subjectEmailCode').external).not.toContain('@aws-sdk/client-sns');
  });
});

describe('bundleReport', () => {
  const dynamo = [...DYNAMODB_CLIENTS].sort();
  const bundle = (name: string, bytes: number, entry = `lambdas/http/handlers/${name}.ts`, extra: Partial<FunctionBundle> = {}): FunctionBundle => ({
    name,
    entry,
    bytes,
    mainBytes: bytes,
    pdfRenderer: false,
    pdfRendererAtStart: false,
    external: dynamo,
    clients: dynamo,
    ...extra,
  });

  it('marks a bundle over its budget OVER LIMIT and says so in its closing lines', () => {
    const certificate = bundle('certificates', 450_000, CERTIFICATE_ENTRY, { mainBytes: 130_000, pdfRenderer: true });
    const { lines, over } = bundleReport([bundle('small', 90_000), bundle('large', BUNDLE_BUDGET_BYTES + 1), certificate]);
    expect(over.map((b) => b.name)).toEqual(['large']);
    expect(lines.find((line) => line.includes('large'))).toContain('OVER LIMIT');
    expect(lines.find((line) => line.includes('small'))).not.toContain('OVER LIMIT');
    expect(lines.find((line) => line.includes('certificates'))).not.toContain('OVER LIMIT');
    expect(lines.at(-2)).toMatch(/^OVER LIMIT: 1 bundle\(s\) above their budget: large 250\.0 kB$/);
  });

  it('holds the certificate function to 500 kB, and what its cold start loads to 250 kB', () => {
    const whole = bundle('certificates', CERTIFICATE_BUNDLE_BUDGET_BYTES + 1, CERTIFICATE_ENTRY, { mainBytes: 130_000, pdfRenderer: true });
    const heavyStart = bundle('certificates', 400_000, CERTIFICATE_ENTRY, { mainBytes: BUNDLE_BUDGET_BYTES + 1, pdfRenderer: true });
    expect(bundleReport([whole]).over).toHaveLength(1);
    expect(bundleReport([heavyStart]).over).toHaveLength(1);
  });

  it('counts a bundle of exactly the budget as within it', () => {
    const { lines, over } = bundleReport([bundle('edge', BUNDLE_BUDGET_BYTES)]);
    expect(over).toEqual([]);
    expect(lines.at(-2)).toBe('All 1 bundles within 250.0 kB (largest: edge, 250.0 kB); the certificate function within 500.0 kB.');
  });

  it('marks a bundle importing a client its function never calls, or missing one it calls, and a PDF renderer loaded at a cold start', () => {
    const kms = '@aws-sdk/client-kms';
    const { lines, miswired } = bundleReport([
      bundle('extra', 90_000, undefined, { external: [...dynamo, kms].sort() }),
      bundle('missing', 90_000, undefined, { clients: [...dynamo, kms].sort() }),
      bundle('certificates', 400_000, CERTIFICATE_ENTRY, { pdfRenderer: true, pdfRendererAtStart: true }),
      bundle('fine', 90_000),
    ]);
    expect(miswired.map((b) => b.name)).toEqual(['extra', 'missing', 'certificates']);
    expect(lines.find((line) => line.includes('extra'))).toContain('IMPORTS CLIENTS IT NEVER CALLS: client-kms');
    expect(lines.find((line) => line.includes('missing'))).toContain('MISSING CLIENTS IT CALLS: client-kms');
    expect(lines.find((line) => line.startsWith('  certificates'))).toContain('LOADS THE PDF RENDERER AT A COLD START');
    expect(lines.at(-1)).toMatch(/^MISWIRED: 3 bundle\(s\)/);
  });
});
