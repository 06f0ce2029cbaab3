import { HelpdeskCallFailed } from '#core/helpdesk.ts';

/**
 * A ticket reference as an adapter may send it: the request's `ticket_external_id` trimmed (a pasted
 * id keeps no white space) and matching `form`, else HelpdeskCallFailed `not_found` before any call.
 * Each adapter's form admits only what can name a ticket in its helpdesk, which also keeps every
 * reference from reaching another path or query (`../`, `?`, `/comment`, an encoded query's `^OR`).
 */
export const ticketRefOf = (externalId: string, form: RegExp, call: string): string => {
  const ref = externalId.trim();
  if (!form.test(ref)) throw new HelpdeskCallFailed('not_found', call);
  return ref;
};

/** A positive integer id as int64 path parameters take it (Zendesk and Freshdesk ticket ids). */
export const POSITIVE_INTEGER_ID = /^[1-9][0-9]{0,18}$/;
