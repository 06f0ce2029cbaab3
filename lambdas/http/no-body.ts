import * as z from 'zod/mini';
import { parseOrThrow } from '#core/validation.ts';

const NO_BODY = z.strictObject({});

/**
 * A POST that takes no body accepts none, an empty one or `{}`; any member answers 422 "Unknown
 * field." on it, so a `reason` or a `delivery` the endpoint does not take is never silently ignored.
 */
export const refuseAnyBody = (body: unknown) => {
  parseOrThrow(NO_BODY, body ?? {});
};
