import { requestIdPath } from '#core/schemas.ts';
import { notFound } from '#core/errors.ts';
import type { ApiEvent } from '../types.ts';

/** The `{id}` of a request path; an id that cannot exist is simply not found. */
export const requestIdOf = (event: ApiEvent) => {
  const parsed = requestIdPath.safeParse(event.pathParameters ?? {});
  if (!parsed.success) throw notFound('No request with this id.');
  return parsed.data.id;
};
