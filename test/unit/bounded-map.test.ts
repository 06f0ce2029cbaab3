import { describe, expect, it } from 'vitest';
import { setNewest } from '../../lambdas/core/bounded-map.ts';

describe('setNewest', () => {
  it('keeps at most the capacity, dropping the entry set longest ago', () => {
    const map = new Map<string, number>();
    for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) setNewest(map, key, index, 3);
    expect([...map]).toEqual([
      ['b', 1],
      ['c', 2],
      ['d', 3],
    ]);
  });

  it('moves a key set again to the newest place, with its new value, without dropping another', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    setNewest(map, 'a', 10, 3);
    expect([...map]).toEqual([
      ['b', 2],
      ['c', 3],
      ['a', 10],
    ]);
  });
});
