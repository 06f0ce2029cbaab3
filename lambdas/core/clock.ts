/** Time is a dependency so tests can move it; production uses the system clock. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export const iso = (d: Date) => d.toISOString();
export const addMinutes = (d: Date, minutes: number) => new Date(d.getTime() + minutes * 60_000);
export const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);
