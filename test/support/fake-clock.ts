import type { Clock } from '../../lambdas/core/clock.ts';

/** A clock the test sets and moves: limits, expiries and windows are tested at chosen instants. */
export class FakeClock implements Clock {
  constructor(private ms: number) {}
  now() {
    return new Date(this.ms);
  }
  set(ms: number) {
    this.ms = ms;
  }
  advance(ms: number) {
    this.ms += ms;
  }
}
