import { appendFileSync } from 'node:fs';
import type { LocalTableAccessOptions } from '../../lambdas/local/function-context.ts';
import type { TableAccessGuard } from '../../lambdas/access/table-access-guard.ts';

/**
 * Every test service holds each function to its table access declaration, so the HTTP tests
 * prove the declarations (and so the deployed IAM policies) suffice.
 *
 * `TABLE_ACCESS_RECORD=<file> npx vitest run <tests>` instead refuses nothing and appends each
 * function's calls to the file (one JSON line each: function, action, index, partition prefix,
 * whether its declaration allows it): what a declaration needs, for a new or changed route.
 */
export const testTableAccess = (): LocalTableAccessOptions => {
  const recordTo = process.env.TABLE_ACCESS_RECORD;
  if (!recordTo) return { enforce: true };
  return {
    enforce: false,
    onUse: (functionName, use, allowed) =>
      appendFileSync(recordTo, `${JSON.stringify({ functionName, action: use.action, index: use.index, partition: prefixOf(use.partitionKey), allowed })}\n`),
  };
};

/** The key up to its first id: `ORG#`, `RATE#org#`, `SIGNING_KEYS`. */
const prefixOf = (key: string | null) => {
  if (key === null) return null;
  const rate = /^RATE#[a-z]+#/.exec(key);
  if (rate) return rate[0];
  const separator = key.indexOf('#');
  return separator < 0 ? key : key.slice(0, separator + 1);
};

/** Fails when the guard refused any call: a refusal the code under test swallowed must still fail its file. */
export const assertNoTableAccessDenials = (guard: TableAccessGuard | null) => {
  if (!guard || guard.denials.length === 0) return;
  const lines = guard.denials.map((denial) => `  ${denial.functionName}: dynamodb:${denial.action}${denial.index ? ` on ${denial.index}` : ''} (${prefixOf(denial.partitionKey)}): ${denial.reason}`);
  throw new Error(`Calls outside the functions' table access declarations (lambdas/access/table-access.ts):\n${[...new Set(lines)].join('\n')}`);
};
