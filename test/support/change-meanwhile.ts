/**
 * A change another Lambda commits between a call's reads and its write, made to happen every time:
 * the table's request store (or share store), with one method that first runs the change set for
 * it (once), served by a second gateway over the same table.
 */
import type { Server } from 'node:http';
import { vi } from 'vitest';
import type { AppDeps } from '../../lambdas/app-deps.ts';
import { createGateway, listen } from '../../lambdas/local/gateway.ts';
import { startTestService } from './test-service.ts';

export interface GatewayWithChangeMeanwhile {
  /** The gateway's root (`http://127.0.0.1:<port>`). */
  root: string;
  /** Runs `change` just before the next call of the store's method, then never again. */
  before(change: () => Promise<unknown>): void;
  close(): void;
}

export const gatewayWithChangeMeanwhile = async (
  deps: AppDeps,
  method: 'create' | 'update',
  storeName: 'requests' | 'shares' = 'requests',
): Promise<GatewayWithChangeMeanwhile> => {
  let next: (() => Promise<unknown>) | null = null;
  const store = deps[storeName]!;
  const original = (store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!;
  const changing = Object.create(store, {
    [method]: {
      value: async (...args: unknown[]) => {
        const change = next;
        next = null;
        await change?.();
        return original.apply(store, args);
      },
    },
  });
  const gateway: Server = createGateway({ ...deps, [storeName]: changing });
  const root = `http://127.0.0.1:${await listen(gateway, 0)}`;
  return {
    root,
    before: (change) => (next = change),
    close: () => {
      gateway.closeAllConnections();
      gateway.close();
    },
  };
};

/**
 * A test service whose organisation trusts unverified ticket closes with no grace period (a close
 * destroys at once), and a gateway whose request store lets a change commit just before a request's
 * write: the set-up of a close raced by a change to what should decide it.
 */
export const closeRacedByChange = async (options?: Parameters<typeof startTestService>[0]) => {
  const service = await startTestService(options);
  const org = await service.createOrganisation();
  await service.admin.setPolicy(org.orgId, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } });
  const changed = await gatewayWithChangeMeanwhile(service.deps, 'update');
  return { service, org, changed };
};

/**
 * Makes `call`, and runs `change` once the call has read through `reader[method]` (its next
 * call only), before the call goes on to write: a change from outside the call, made to land
 * between its read and its write every time. Restored by `vi.restoreAllMocks()`.
 */
export const changeAfterRead = async <R extends object, T>(reader: R, method: keyof R & string, call: () => Promise<T>, change: () => Promise<unknown>): Promise<T> => {
  const original = (reader[method] as (...args: unknown[]) => Promise<unknown>).bind(reader);
  let reached!: () => void;
  const paused = new Promise<void>((resolve) => (reached = resolve));
  let go!: () => void;
  const changed = new Promise<void>((resolve) => (go = resolve));
  vi.spyOn(reader, method as never).mockImplementationOnce((async (...args: unknown[]) => {
    const found = await original(...args);
    reached();
    await changed;
    return found;
  }) as never);
  const answering = call();
  await paused;
  await change();
  go();
  return answering;
};
