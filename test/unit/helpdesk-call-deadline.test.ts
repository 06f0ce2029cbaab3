/**
 * A reply's deadline bounds every helpdesk call made within it (call-deadline.ts): a call that
 * could not end by it is not sent, and one in flight is cut at it, whatever the adapter's own
 * per-call limit; outside the deadline's work, calls keep their own limit.
 */
import { describe, expect, it } from 'vitest';
import { withHelpdeskDeadline } from '../../lambdas/adapters/helpdesks/call-deadline.ts';
import { HelpdeskHttp } from '../../lambdas/adapters/helpdesks/helpdesk-http.ts';
import { HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';

/** A fetch that answers 200 after `ms`, or rejects when its signal aborts first; counts its calls. */
const slowFetch = (ms: number) => {
  const calls: number[] = [];
  const fetch = ((_url: string, init: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      calls.push(Date.now());
      const timer = setTimeout(() => resolve(new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } })), ms);
      init.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(init.signal!.reason);
      });
    })) as unknown as typeof globalThis.fetch;
  return { calls, fetch };
};

const call = { call: 'read the ticket', method: 'GET', url: 'https://desk.example.com/api/ticket/1' } as const;

describe('a helpdesk call within a reply’s deadline', () => {
  it('is cut at the deadline, though its own limit is longer', async () => {
    const { fetch } = slowFetch(2_000);
    const http = new HelpdeskHttp({ timeoutMs: 3_000, fetch });
    const started = Date.now();
    const failed = await withHelpdeskDeadline(started + 150, () => http.send(call)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(HelpdeskCallFailed);
    expect((failed as HelpdeskCallFailed).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('is not sent at all once the deadline has passed', async () => {
    const { calls, fetch } = slowFetch(10);
    const http = new HelpdeskHttp({ timeoutMs: 3_000, fetch });
    const failed = await withHelpdeskDeadline(Date.now() - 1, () => http.send(call)).catch((error: unknown) => error);
    expect((failed as HelpdeskCallFailed).reason).toBe('timeout');
    expect(calls).toHaveLength(0);
  });

  it('keeps its own limit outside a deadline’s work', async () => {
    const { fetch } = slowFetch(300);
    const http = new HelpdeskHttp({ timeoutMs: 3_000, fetch });
    await withHelpdeskDeadline(Date.now() + 50, async () => undefined);
    expect((await http.send(call)).status).toBe(200);
  });
});
