import { inspect } from 'node:util';
import { expect } from 'vitest';
import { HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';

/**
 * Collects the failures a helpdesk test provoked, so that the file can check at the end that
 * none of them carries a secret, a token or the helpdesk's address.
 */
export const helpdeskFailures = () => {
  const seen: unknown[] = [];
  /** The HelpdeskCallFailed the promise rejects with (failing the test if it resolves or throws anything else). */
  const failure = async (promise: Promise<unknown>): Promise<HelpdeskCallFailed> => {
    const error = await promise.then(
      () => expect.fail('the call succeeded'),
      (thrown: unknown) => thrown,
    );
    seen.push(error);
    expect(error).toBeInstanceOf(HelpdeskCallFailed);
    return error as HelpdeskCallFailed;
  };

  /**
   * Each call, its endpoint made to hang first (`hang`), fails as a transient `timeout` no sooner
   * than `timeoutMs` and not long after: the adapter gives up by its own deadline.
   */
  const timesOut = async (timeoutMs: number, calls: ReadonlyArray<readonly [hang: () => void, call: () => Promise<unknown>]>) => {
    for (const [hang, call] of calls) {
      hang();
      const started = performance.now();
      expect(await failure(call())).toMatchObject({ reason: 'timeout', transient: true });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 20);
      expect(elapsed).toBeLessThan(timeoutMs + 1_500);
    }
  };

  /**
   * No failure seen so far shows a secret or the helpdesk's address, however it is printed, and the
   * adapter shows no secret when it is logged. `atLeast` keeps the check from passing on no failures.
   */
  const showsNothing = (secrets: readonly string[], helpdeskUrl: string, adapter: object, atLeast = 30) => {
    expect(seen.length).toBeGreaterThan(atLeast);
    for (const error of seen) {
      const shown = [String(error), (error as Error).stack ?? '', inspect(error, { depth: 5 }), JSON.stringify(error)].join('\n');
      for (const secret of secrets) expect(shown).not.toContain(secret);
      expect(shown).not.toContain(helpdeskUrl);
    }
    const logged = [inspect(adapter, { depth: 10, showHidden: true }), JSON.stringify(adapter), String(adapter)].join('\n');
    for (const secret of secrets) expect(logged).not.toContain(secret);
  };
  /**
   * Credentials the helpdesk refuses (401): the read, then the reply, each fail once as a final
   * `unauthorized`, the reply naming `replyCall` (the call that was refused).
   */
  const refusedLogin = async (read: () => Promise<unknown>, reply: () => Promise<unknown>, replyCall: string) => {
    expect(await failure(read())).toMatchObject({ reason: 'unauthorized', status: 401, transient: false });
    expect(await failure(reply())).toMatchObject({ reason: 'unauthorized', status: 401, call: replyCall });
  };
  return { seen, failure, timesOut, showsNothing, refusedLogin };
};
