import type { Logger } from '@aws-lambda-powertools/logger';
import { tableAccessOfEntry, tableAccessOfWorker, type TableAccess, type WorkerName } from '../access/table-access.ts';
import { TableAccessGuard, type TableAccessGuardOptions } from '../access/table-access-guard.ts';
import { FALLBACK_ENTRY, type Route } from '../http/routes.ts';
import type { Documents } from '#store/dynamo.ts';

export interface LocalTableAccessOptions {
  /** Refuse what a function's declaration does not allow (default); off, only report uses. */
  enforce?: boolean;
  onUse?: TableAccessGuardOptions['onUse'];
  onCall?: TableAccessGuardOptions['onCall'];
}

/**
 * Each local invocation runs as the function it would be deployed: a route's calls as its
 * handler entry's function, a worker's as that worker, so the guard holds each to its own
 * declaration. Without a guard, invocations run as they are.
 */
export class FunctionContext {
  /** Each handler entry's declaration, worked out once (a missing one is thrown at every call). */
  private readonly entries = new Map<string, TableAccess>();

  constructor(readonly guard: TableAccessGuard | null) {}

  /** A guard on `db` that logs every refusal as an error, or none when not asked for. */
  static create(db: Documents, logger: Pick<Logger, 'error'>, options: LocalTableAccessOptions | undefined) {
    if (!options) return new FunctionContext(null);
    const guard = new TableAccessGuard({
      enforce: options.enforce,
      onUse: options.onUse,
      onCall: options.onCall,
      onDenied: (denial) =>
        logger.error('table access denied: the function did what its declaration in lambdas/access/table-access.ts does not allow', {
          functionName: denial.functionName,
          action: denial.action,
          index: denial.index,
          partition: denial.partitionKey?.replace(/#.*$/, '#…'),
          reason: denial.reason,
        }),
    });
    return new FunctionContext(guard.attach(db));
  }

  /** Runs one API invocation as the function serving `route` (the fallback's when none matched). */
  route<T>(route: Route | null, invoke: () => Promise<T>): Promise<T> {
    if (!this.guard) return invoke();
    const entry = route?.entry ?? FALLBACK_ENTRY;
    let access = this.entries.get(entry);
    if (!access) this.entries.set(entry, (access = tableAccessOfEntry(entry)));
    return this.guard.run(route?.name ?? 'fallback', access, invoke);
  }

  /** The worker's handler, each invocation run as that worker. */
  worker<Args extends unknown[], Result>(name: WorkerName, handler: (...args: Args) => Result): (...args: Args) => Result {
    const guard = this.guard;
    if (!guard) return handler;
    return (...args) => guard.run(name, tableAccessOfWorker(name), () => handler(...args));
  }
}
