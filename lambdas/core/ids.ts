import { ulid } from 'ulid';

/** Ids are lower-case ULIDs, `^[0-9a-z]{26}$`, as SPEC.md requires. */
export const ID_PATTERN = /^[0-9a-z]{26}$/;
export const newId = (time?: number) => ulid(time).toLowerCase();
export const isId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);
