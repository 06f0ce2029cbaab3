/**
 * A value made the first time it is asked for, then kept: the deployed adapters make their client
 * only when a call needs it, so a function that never sends, seals or schedules never reads the
 * variables (or needs the rights) for it.
 */
export const onFirstUse = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};
