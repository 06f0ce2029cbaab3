import { describe, expect, it } from 'vitest';
import { RateLeases } from '../../lambdas/store/rate-leases.ts';

const WINDOW = 1_700_000_040;

describe('rate leases', () => {
  it('reserve a single count for the first call of a window, before any decision says what is left', () => {
    const leases = new RateLeases();
    expect(leases.take('org#key', WINDOW)).toBeNull();
    expect(leases.sizeFor('org#key', WINDOW)).toBe(1);
  });

  it('grow with what the last decision left of the limit: a twentieth of it, at most ten, one under 40', () => {
    const leases = new RateLeases();
    leases.reserved('org#key', WINDOW, 1, { key: 1, org: 1 });
    for (const [remaining, size] of [[599, 10], [200, 10], [199, 9], [100, 5], [40, 2], [39, 1], [0, 1]] as const) {
      leases.decided('org#key', WINDOW, remaining);
      expect(leases.sizeFor('org#key', WINDOW), `${remaining} left`).toBe(size);
    }
  });

  it('hand out the reserved places one by one, in order, and then ask for a new reservation', () => {
    const leases = new RateLeases();
    // Ten counts reserved; the table's totals after the ADD were key 25, organisation 110.
    expect(leases.reserved('org#key', WINDOW, 10, { key: 25, org: 110 })).toEqual({ key: 16, org: 101 });
    const places = Array.from({ length: 9 }, () => leases.take('org#key', WINDOW));
    expect(places).toEqual(Array.from({ length: 9 }, (_, i) => ({ key: 17 + i, org: 102 + i })));
    expect(leases.take('org#key', WINDOW)).toBeNull();
  });

  it('never give a place twice: a newer reservation replaces the older one, whose unused places are lost', () => {
    const leases = new RateLeases();
    leases.reserved('org#key', WINDOW, 5, { key: 5, org: 5 });
    const fromFirst = leases.take('org#key', WINDOW)!;
    leases.reserved('org#key', WINDOW, 5, { key: 10, org: 10 });
    const fromSecond = [leases.take('org#key', WINDOW), leases.take('org#key', WINDOW)];
    expect(fromFirst).toEqual({ key: 2, org: 2 });
    expect(fromSecond).toEqual([{ key: 7, org: 7 }, { key: 8, org: 8 }]);
  });

  it('keep nothing across windows, and keep callers apart', () => {
    const leases = new RateLeases();
    leases.reserved('org#key', WINDOW, 10, { key: 10, org: 10 });
    leases.decided('org#key', WINDOW, 590);
    expect(leases.take('org#key', WINDOW + 60)).toBeNull();
    expect(leases.sizeFor('org#key', WINDOW + 60)).toBe(1);
    expect(leases.take('org#other', WINDOW)).toBeNull();
    expect(leases.take('org#key', WINDOW)).toEqual({ key: 2, org: 2 });
  });
});
