/**
 * The bench's cost section: measures handoffs and reads on a metered local service over its own
 * DynamoDB Local, reads each function's memory size from the stack, and prints the cost table.
 * BENCH_COST_HANDOFFS and BENCH_COST_READS set how much work is measured (the table is per unit,
 * so more work only steadies the averages); BENCH_COST_HANDOFFS=0 skips the section.
 */
import { startDynamoLocal } from '../../lambdas/local/dynamodb-local.ts';
import { costReport, functionBreakdown, logBreakdown } from './cost-report.ts';
import { runCostMeasurement } from './cost-run.ts';
import { deployedFunctions } from './deployed-functions.ts';
import { usagePerUnit } from './usage.ts';

const HANDOFFS = Number(process.env.BENCH_COST_HANDOFFS ?? 100);
const READS = Math.max(1, Number(process.env.BENCH_COST_READS ?? 2_000));

export const costBench = async () => {
  if (!(HANDOFFS > 0)) return;
  const configOf = deployedFunctions();
  const dynamo = await startDynamoLocal();
  let measured: Awaited<ReturnType<typeof runCostMeasurement>>;
  const started = Date.now();
  try {
    measured = await runCostMeasurement({ dynamoEndpoint: dynamo.endpoint, handoffs: HANDOFFS, reads: READS });
  } finally {
    await dynamo.stop();
  }
  console.log(`cost: ${HANDOFFS} handoffs and ${READS} reads measured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const line of costReport(usagePerUnit(measured.handoff, configOf), usagePerUnit(measured.read, configOf))) console.log(line);
  console.log(`\nLambda per handoff: ${functionBreakdown(measured.handoff, configOf)}.`);
  console.log(`Lambda per read: ${functionBreakdown(measured.read, configOf)}.`);
  console.log(`Log bytes per handoff: ${logBreakdown(measured.handoff, configOf)}; per read: ${logBreakdown(measured.read, configOf)}.`);
  if (measured.transactionMismatches.length) {
    console.log(`Priced transactions that differ from DynamoDB Local's own figure: ${measured.transactionMismatches.slice(0, 5).join('; ')}  CHECK`);
  }
};
