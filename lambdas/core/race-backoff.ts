/**
 * The pause before a change that lost its conditional write reads the record again: a few
 * milliseconds, more with each lost race, at random, so that calls racing for one record (a
 * burst of codes typed, reveals beside a completion) spread out instead of colliding again on
 * their next try at the same instant.
 */
export const raceBackoff = (race: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 8 * race));
