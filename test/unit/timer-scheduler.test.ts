import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_SWEEP_INTERVAL_MS, MAX_TIMER_DELAY_MS, TimerScheduler } from '../../lambdas/local/timer-scheduler.ts';

const ID = '01hrequest0000000000000001';
const START = new Date('2025-03-04T00:00:00.000Z');

let expired: string[];
let sweeps: number;
let scheduler: TimerScheduler;

const make = (options: { fire?: (id: string) => Promise<unknown>; onError?: (e: unknown, id: string | null) => void } = {}) =>
  new TimerScheduler({
    fire: options.fire ?? (async (id) => void expired.push(id)),
    sweep: async () => {
      sweeps += 1;
    },
    onError: options.onError,
  });

beforeEach(() => {
  vi.useFakeTimers({ now: START });
  expired = [];
  sweeps = 0;
  scheduler = make();
});
afterEach(async () => {
  await scheduler.stop();
  vi.useRealTimers();
});

const at = (ms: number) => new Date(START.getTime() + ms).toISOString();

describe('TimerScheduler', () => {
  it('runs the worker in its own context, not in that of the call that armed the timer (its table access, its read batching)', async () => {
    // Real timers: a faked setTimeout runs its callbacks from the test, in no arming context at all.
    await scheduler.stop();
    vi.useRealTimers();
    const calling = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    scheduler = make({ fire: async () => void seen.push(calling.getStore()) });
    await calling.run('the inbound call', () => scheduler.schedule(ID, new Date(Date.now() + 10).toISOString()));
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen).toEqual([undefined]);
  });

  it('runs the expiry worker for the request when it falls due, not before', async () => {
    await scheduler.schedule(ID, at(5_000));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual([ID]);
    expect(scheduler.pending()).toEqual([]);
  });

  it('runs it at once for a due time already passed', async () => {
    await scheduler.schedule(ID, at(-60_000));
    await vi.advanceTimersByTimeAsync(0);
    expect(expired).toEqual([ID]);
  });

  it('replaces the timer when the request is armed again', async () => {
    await scheduler.schedule(ID, at(5_000));
    await scheduler.schedule(ID, at(60_000));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual([ID]);
  });

  it('cancels', async () => {
    await scheduler.schedule(ID, at(5_000));
    await scheduler.cancel(ID);
    await scheduler.cancel('01hrequest0000000000000009'); // unknown: no error
    await vi.advanceTimersByTimeAsync(10_000);
    expect(expired).toEqual([]);
  });

  it('waits past setTimeout\'s 2^31-1 ms limit by re-arming', async () => {
    const due = MAX_TIMER_DELAY_MS * 2 + 1_000; // about 50 days
    await scheduler.schedule(ID, at(due));
    await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS);
    expect(expired).toEqual([]);
    expect(scheduler.pending()).toEqual([ID]);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(999);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual([ID]);
  });

  it('sweeps once at start and then every minute, never two at a time', async () => {
    let release!: () => void;
    let running = 0;
    let maxRunning = 0;
    const slow = new TimerScheduler({
      fire: async () => undefined,
      sweep: () => {
        sweeps += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        return new Promise<void>((done) => {
          release = () => {
            running -= 1;
            done();
          };
        });
      },
    });
    slow.start();
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(LOCAL_SWEEP_INTERVAL_MS * 3);
    expect(sweeps).toBe(1); // the first is still running
    release();
    await vi.advanceTimersByTimeAsync(LOCAL_SWEEP_INTERVAL_MS);
    expect(sweeps).toBe(2);
    release();
    expect(maxRunning).toBe(1);
    await slow.stop();
  });

  it('reports a failing worker call and carries on', async () => {
    const errors: Array<string | null> = [];
    scheduler = make({
      fire: async () => {
        throw new Error('table gone');
      },
      onError: (_e, id) => errors.push(id),
    });
    await scheduler.schedule(ID, at(1_000));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toEqual([ID]);
  });

  it('stop() clears every timer, waits for calls in flight, and arms nothing after', async () => {
    let finish!: () => void;
    let finished = false;
    scheduler = make({
      fire: () =>
        new Promise<void>((done) => {
          finish = () => {
            finished = true;
            done();
          };
        }),
    });
    scheduler.start();
    await scheduler.schedule(ID, at(1_000));
    await scheduler.schedule('01hrequest0000000000000002', at(5_000));
    await vi.advanceTimersByTimeAsync(1_000);
    const stopping = scheduler.stop();
    expect(scheduler.pending()).toEqual([]);
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(finished).toBe(true);
    await scheduler.schedule(ID, at(2_000));
    expect(scheduler.pending()).toEqual([]);
    const sweepsAtStop = sweeps;
    await vi.advanceTimersByTimeAsync(LOCAL_SWEEP_INTERVAL_MS * 2);
    expect(sweeps).toBe(sweepsAtStop);
  });

  it('never keeps the process alive', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    await scheduler.schedule(ID, at(1_000));
    const timer = spy.mock.results[0]!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    spy.mockRestore();
  });
});
