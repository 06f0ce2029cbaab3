/**
 * The functions' part of the benchmark: every bundle's size against the budget and every
 * bundle's import time against the DynamoDB-client baseline. `npm run bench` ends with it;
 * `npm run bench:functions` runs it alone (no DynamoDB Local needed). Exits non-zero when a
 * bundle is over the budget.
 */
import { pathToFileURL } from 'node:url';
import { bundleReport } from './bundle-budget.ts';
import { coldStartReport, measureColdStarts } from './cold-start.ts';

/** Import runs per bundle, after one discarded warm-up round. */
const COLD_START_RUNS = Number(process.env.BENCH_COLD_START_RUNS ?? 7);

/** Prints both tables; answers whether every bundle is within the budget. */
export const functionsBench = async (): Promise<boolean> => {
  const { bundles, result } = await measureColdStarts({ runs: COLD_START_RUNS });
  console.log('\nLambda bundles (esbuild with the stack\'s options: minified ESM, AWS SDK external; 1 kB = 1,000 bytes), and the runtime packages each imports:\n');
  const { lines, over } = bundleReport(bundles);
  for (const line of lines) console.log(line);
  for (const line of coldStartReport(result)) console.log(line);
  if (over.length) console.error(`\nOVER LIMIT: ${over.map((b) => b.name).join(', ')}`);
  return over.length === 0;
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
