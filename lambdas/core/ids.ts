import { monotonicFactory } from 'ulid';

/** Ids are lower-case ULIDs, `^[0-9a-z]{26}$`, as SPEC.md requires. */
export const ID_PATTERN = /^[0-9a-z]{26}$/;

/** Monotonic within a process, so ids made in the same millisecond still sort in creation order. */
const monotonicUlid = monotonicFactory();
export const newId = (time?: number) => monotonicUlid(time).toLowerCase();
export const isId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);
