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

/** A positive integer id as int64 path parameters take it (Zendesk, Freshdesk and Freshservice ticket ids). */
export const POSITIVE_INTEGER_ID = /^[1-9][0-9]{0,18}$/;

const INT32_MAX = 2_147_483_647;

/**
 * A ticket id as an int32 path parameter takes it (HaloPSA's and ConnectWise PSA's ticket ids): a
 * positive integer of at most ten digits and no larger than 2^31 - 1, which names no ticket beyond it.
 */
export const int32TicketIdOf = (externalId: string, call: string): number => {
  const id = Number(ticketRefOf(externalId, /^[1-9][0-9]{0,9}$/, call));
  if (id > INT32_MAX) throw new HelpdeskCallFailed('not_found', call);
  return id;
};
