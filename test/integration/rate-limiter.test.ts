import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import type { RateLimits } from '../../lambdas/core/model.ts';
import { DynamoRateLimiter, type RateDecision } from '../../lambdas/store/rate-limiter.ts';
import { rateTableNameOf } from '../../lambdas/store/table.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * The limiter as many warm function instances run it: each instance its own DynamoRateLimiter,
 * with its own memory, all counting in the one table. SPEC.md promises 600 calls a minute per key
 * and 1,200 per organisation: a window must admit exactly that, never more and never fewer, however
 * the calls are spread over instances and however many arrive at once.
 */
const MINUTE = Math.floor(Date.now() / 60_000) * 60_000;
const clock = new FakeClock(MINUTE + 30_000);
const DEFAULTS: RateLimits = { perKeyPerMinute: 600, perOrgPerMinute: 1200 };

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ clock });
});
afterAll(() => service?.stop());

const instances = (count: number) => Array.from({ length: count }, () => new DynamoRateLimiter(service.deps.db, rateTableNameOf(service.deps.tableName), clock));

/** One call of `keyId`, on a random instance, judged against `limits` as the rate-limit middleware does. */
const call = (limiters: DynamoRateLimiter[], orgId: string, keyId: string, limits: RateLimits = DEFAULTS) =>
  limiters[Math.floor(Math.random() * limiters.length)].count(keyId, orgId).judge(limits);

/** The calls, `burst` at once, each on a random instance. */
const inBursts = async <D extends RateDecision>(calls: Array<() => Promise<D>>, burst: number) => {
  const decisions: D[] = [];
  for (let sent = 0; sent < calls.length; sent += burst) decisions.push(...(await Promise.all(calls.slice(sent, sent + burst).map((c) => c()))));
  return decisions;
};

const allowed = (decisions: RateDecision[]) => decisions.filter((d) => d.allowed).length;

describe('twenty function instances counting in one table', () => {
  it('admit exactly 600 per key and 1,200 per organisation', async () => {
    const limiters = instances(20);
    const orgId = newId();
    const [a, b, c] = [newId(), newId(), newId()];
    // Two keys, 700 calls each, interleaved in bursts of 60 at once: each is held to exactly 600,
    // which fills the organisation's 1,200; a third key then gets nothing.
    const calls = Array.from({ length: 1400 }, (_, i) => {
      const key = i % 2 ? a : b;
      return () => call(limiters, orgId, key).then((d) => ({ ...d, key }));
    });
    const decisions = await inBursts(calls, 60);
    expect(allowed(decisions.filter((d) => d.key === a))).toBe(600);
    expect(allowed(decisions.filter((d) => d.key === b))).toBe(600);
    for (const refused of decisions.filter((d) => !d.allowed)) expect(refused).toMatchObject({ remaining: 0, retryAfterSeconds: 30 });
    // Each admitted call had a place of its own among the organisation's 1,200.
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    expect(Math.min(...remaining)).toBe(0);
    expect(allowed(await inBursts(Array.from({ length: 100 }, () => () => call(limiters, orgId, c)), 50))).toBe(0);
  });

  it('admit exactly 1,200 to an organisation whose keys each stay under their own limit', async () => {
    const limiters = instances(20);
    const orgId = newId();
    const keys = [newId(), newId(), newId()];
    const decisions = await inBursts(Array.from({ length: 1500 }, (_, i) => () => call(limiters, orgId, keys[i % 3])), 60);
    expect(allowed(decisions)).toBe(1200);
  });

  it('admit exactly 600 to one key whose calls are spread over all of them', async () => {
    const limiters = instances(20);
    const orgId = newId();
    const key = newId();
    const decisions = await inBursts(Array.from({ length: 640 }, () => () => call(limiters, orgId, key)), 40);
    expect(allowed(decisions)).toBe(600);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((x, y) => y - x);
    expect(remaining).toEqual(Array.from({ length: 600 }, (_, i) => 599 - i));
  });

  it('admit the whole allowance when calls trickle in one at a time over the instances', async () => {
    const limiters = instances(20);
    const orgId = newId();
    const key = newId();
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 620; i++) decisions.push(await call(limiters, orgId, key));
    expect(decisions.slice(0, 600).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(600).every((d) => !d.allowed)).toBe(true);
  });
});

describe('limits that change while instances remember the old ones', () => {
  it('lowered: no instance admits past the new limit, and the counts it gave back are not lost', async () => {
    const limiters = instances(5);
    const orgId = newId();
    const key = newId();
    // Every instance learns the defaults.
    for (const limiter of limiters) expect((await limiter.count(key, orgId).judge(DEFAULTS)).allowed).toBe(true);
    const lowered = { perKeyPerMinute: 8, perOrgPerMinute: 8 };
    const decisions = await inBursts(Array.from({ length: 20 }, () => () => call(limiters, orgId, key, lowered)), 20);
    // Five were counted before; three more fit under the lowered limit of eight.
    expect(allowed(decisions)).toBe(3);
  });

  it('raised: a call refused under the old limit is counted again under the new one', async () => {
    const limiters = instances(3);
    const orgId = newId();
    const key = newId();
    const low = { perKeyPerMinute: 2, perOrgPerMinute: 2 };
    for (const limiter of limiters) await limiter.count(key, orgId).judge(low);
    const raised = { perKeyPerMinute: 10, perOrgPerMinute: 10 };
    const decisions = await inBursts(Array.from({ length: 12 }, () => () => call(limiters, orgId, key, raised)), 12);
    expect(allowed(decisions)).toBe(8);
  });
});
