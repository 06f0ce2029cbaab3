/**
 * The cold-start table (bench/cold-start.ts coldStartReport): every function's ratio beside its
 * baseline's clients, a MISS on each over the target, and a closing line that names them.
 */
import { describe, expect, it } from 'vitest';
import { COLD_START_TARGET, coldStartReport, type ColdStart } from '../../bench/cold-start.ts';

const dynamo = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];
const fn = (name: string, ratio: number, clients = dynamo): ColdStart => ({
  name,
  bytes: 100_000,
  clients,
  wallMs: 150 * ratio,
  cpuMs: 150 * ratio,
  baselineCpuMs: 150,
  ratio,
  floorRatio: ratio,
});
const report = (functions: ColdStart[]) =>
  coldStartReport({ floor: { wallMs: 140, cpuMs: 150, bytes: 200 }, runs: 11, functions, loadBefore: 1, loadAfter: 1.5 });

describe('coldStartReport', () => {
  it(`prints each function's ratio and clients, and marks MISS each over ${COLD_START_TARGET}x`, () => {
    const lines = report([fn('ping', 1.02), fn('createRequest', 1.2, [...dynamo, '@aws-sdk/client-kms'].sort()), fn('fallback', 0.05, [])]);
    expect(lines.find((line) => line.includes(' ping '))).toMatch(/1\.02x/);
    expect(lines.find((line) => line.includes(' ping '))).not.toContain('MISS');
    expect(lines.find((line) => line.includes(' createRequest '))).toMatch(/dynamodb kms lib-dynamodb .* 1\.20x .* MISS \(target 1\.15x\)$/);
    expect(lines.find((line) => line.includes(' fallback '))).toContain('(none: the DynamoDB floor)');
    expect(lines.at(-1)).toBe('\nCold-start target MISSED by 1 of 3 functions: createRequest 1.20x');
  });

  it('says the target is met, and by whom most narrowly, when no function is over it', () => {
    expect(report([fn('ping', 1.02), fn('getRequest', 1.15)]).at(-1)).toBe('\nCold-start target met: all 2 functions within 1.15x of their baselines (highest: getRequest, 1.15x).');
  });

  it('states the load the figures were taken under', () => {
    expect(report([fn('ping', 1)]).join('\n')).toMatch(/Load average 1\.00 before, 1\.50 after/);
  });
});
