/**
 * Each function's memory size and architecture, read from the stack itself: lib/ is synthesised in
 * memory (bundling skipped, as the infra tests do) and each local function name is looked up on
 * the construct that deploys it, a route by its row (ApiFunctions.byRoute), a worker by its
 * construct. A name with no function behind it fails the run rather than being priced at a guess.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import type { WorkerName } from '../../lambdas/access/table-access.ts';

export interface FunctionConfig {
  memoryMb: number;
  architecture: string;
}

/** Lambda's default when a function names no memory size (CloudFormation's, too). */
const LAMBDA_DEFAULT_MEMORY_MB = 128;

const configOf = (fn: IFunction): FunctionConfig => {
  const cfn = fn.node.defaultChild as CfnFunction;
  return { memoryMb: Number(cfn.memorySize ?? LAMBDA_DEFAULT_MEMORY_MB), architecture: String((cfn.architectures as string[] | undefined)?.[0] ?? 'x86_64') };
};

/** Synthesises the stack once and answers each function's configuration by its local name. */
export const deployedFunctions = () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cost-synth-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@cost.example' } });
    const stack = new HandoffStack(app, 'Cost');
    const workers: Record<WorkerName, IFunction> = {
      expire: stack.expiry.expiryFunction,
      purge: stack.expiry.purgeFunction,
      sweep: stack.expiry.sweepFunction,
      fanOut: stack.webhooks.fanOutFunction,
      deliver: stack.webhooks.deliverFunction,
      deliverySweep: stack.webhooks.sweepFunction,
      recordApiReads: stack.apiReadRecords.recorderFunction,
      ticketCheck: stack.helpdeskChecks.checkFunction,
      reconcile: stack.helpdeskChecks.reconcileFunction,
    };
    const configs = new Map<string, FunctionConfig>();
    for (const [name, fn] of [...stack.functions.byRoute, ...Object.entries(workers)]) configs.set(name, configOf(fn));
    configs.set('fallback', configOf(stack.functions.fallback));
    return (functionName: string): FunctionConfig => {
      const config = configs.get(functionName);
      if (!config) throw new Error(`no deployed function serves ${functionName}: its memory size is unknown`);
      return config;
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
