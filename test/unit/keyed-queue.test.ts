import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../lambdas/core/keyed-queue.ts';

describe('KeyedQueue', () => {
  it('runs work of one key one at a time, in arrival order, and says which waited', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const step = (name: string, ms: number) => async (waited: boolean) => {
      log.push(`start ${name} waited=${waited}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([queue.run('a', step('a1', 20)), queue.run('a', step('a2', 1)), queue.run('b', step('b1', 5))]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2 waited=true'));
    expect(log).toContain('start a1 waited=false');
    expect(log).toContain('start b1 waited=false');
    // b did not wait for a.
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
  });

  it('a failure passes to its caller only; the next in line still runs', async () => {
    const queue = new KeyedQueue();
    const failing = queue.run('k', async () => {
      throw new Error('boom');
    });
    const next = queue.run('k', async (waited) => `ran after, waited=${waited}`);
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran after, waited=true');
    await expect(queue.run('k', async (waited) => waited)).resolves.toBe(false);
  });
});
