/**
 * The functions' part of the benchmark: every bundle's size against the budget and its SDK
 * clients against those its function calls, and every bundle's import time against a baseline of
 * exactly those clients (a MISS marked on each over the target). `npm run bench` ends with it;
 * `npm run bench:functions` runs it alone (no DynamoDB Local needed). Exits non-zero when a bundle
 * is over its budget or imports other clients than its function calls; a cold-start miss, a
 * timing on a shared machine, is marked but does not fail the run.
 */
import { pathToFileURL } from 'node:url';
import { bundleReport } from './bundle-budget.ts';
import { coldStartReport, measureColdStarts } from './cold-start.ts';

/**
 * Import runs per bundle, after one discarded warm-up round. 11: on the shared 2-core development
 * machine a function's ratio over 7 runs moved by up to 0.3 from one bench to the next, against a
 * target of 1.15.
 */
const COLD_START_RUNS = Number(process.env.BENCH_COLD_START_RUNS ?? 11);

/** Prints both tables; answers whether every bundle is within its budget and imports exactly its function's clients. */
export const functionsBench = async (): Promise<boolean> => {
  const { bundles, result } = await measureColdStarts({ runs: COLD_START_RUNS });
  console.log('\nLambda bundles (esbuild with the stack\'s options: minified ESM, AWS SDK external; 1 kB = 1,000 bytes), and the runtime packages each imports:\n');
  const { lines, over, miswired } = bundleReport(bundles);
  for (const line of lines) console.log(line);
  for (const line of coldStartReport(result)) console.log(line);
  if (over.length) console.error(`\nOVER LIMIT: ${over.map((b) => b.name).join(', ')}`);
  if (miswired.length) console.error(`\nMISWIRED: ${miswired.map((b) => b.name).join(', ')}`);
  return over.length === 0 && miswired.length === 0;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  functionsBench().then(
    (withinBudget) => process.exit(withinBudget ? 0 : 1),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
