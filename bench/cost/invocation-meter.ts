/**
 * Lambda invocations and their billed milliseconds, per function. Every local invocation, an API
 * route's or a worker's, runs through the table access guard's `run` as the function it would be
 * deployed (lambdas/local/function-context.ts): wrapping that one method sees each of them with its
 * name, and gives the other meters the function running now. The time the meters themselves spend
 * inside an invocation (reading items to price a transaction) is taken off its duration.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TableAccess } from '../../lambdas/access/table-access-types.ts';
import type { TableAccessGuard } from '../../lambdas/access/table-access-guard.ts';

export interface Invocation {
  functionName: string;
  /** Milliseconds a meter spent inside this invocation, not the function's own time. */
  meteringMs: number;
}

export interface FunctionUsage {
  invocations: number;
  /** Lambda's billed duration: each invocation rounded up to the millisecond. */
  billedMs: number;
}

const isThenable = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

export class InvocationMeter {
  private readonly running = new AsyncLocalStorage<Invocation>();
  private usage = new Map<string, FunctionUsage>();

  /** `ignored`: functions whose invocations belong to no unit of work (the sweeps every minute), and whose calls are not counted either. */
  constructor(private readonly ignored: ReadonlySet<string>) {}

  /** The counted invocation running now, or undefined (outside any function, or in an ignored one). */
  current(): Invocation | undefined {
    const invocation = this.running.getStore();
    return invocation && !this.ignored.has(invocation.functionName) ? invocation : undefined;
  }

  attach(guard: TableAccessGuard) {
    const run = guard.run.bind(guard);
    guard.run = <T>(functionName: string, access: TableAccess, call: () => T): T => {
      const invocation: Invocation = { functionName, meteringMs: 0 };
      return this.running.run(invocation, () => {
        const started = performance.now();
        const done = () => this.record(invocation, performance.now() - started);
        const result = run(functionName, access, call);
        if (isThenable(result)) return result.finally(done) as T;
        done();
        return result;
      });
    };
    return this;
  }

  private record(invocation: Invocation, elapsedMs: number) {
    if (this.ignored.has(invocation.functionName)) return;
    const usage = this.usage.get(invocation.functionName) ?? { invocations: 0, billedMs: 0 };
    usage.invocations += 1;
    usage.billedMs += Math.max(1, Math.ceil(elapsedMs - invocation.meteringMs));
    this.usage.set(invocation.functionName, usage);
  }

  byFunction(): ReadonlyMap<string, FunctionUsage> {
    return new Map([...this.usage].map(([name, usage]) => [name, { ...usage }]));
  }

  reset() {
    this.usage = new Map();
  }
}
