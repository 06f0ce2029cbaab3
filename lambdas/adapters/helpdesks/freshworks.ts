import { iso, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { adapterBasics, type HelpdeskAdapterSetup } from './adapter-basics.ts';
import { basicAuthorization } from './basic-auth.ts';
import { answeredId, isJsonObject, type HelpdeskHttp } from './helpdesk-http.ts';
import { plainTextAsHtml } from './plain-text-html.ts';
import { POSITIVE_INTEGER_ID, ticketRefOf } from './ticket-ref.ts';

/**
 * What Freshworks' two helpdesks (Freshdesk, freshdesk.ts; Freshservice, freshservice.ts) share in
 * their API v2, and so what one adapter here does for both:
 * - auth: HTTP Basic with an agent's API key as the user and `X` as the password, on every call;
 * - read: View a Ticket `GET /api/v2/tickets/{id}`, taking `id` (checked), `status` and `deleted`;
 * - reply: Reply to a Ticket `POST /api/v2/tickets/{id}/reply` with `body` alone (HTML);
 * - the same positive integer ids and the same status numbers.
 * They differ in where an answer puts its record: Freshdesk answers the ticket (or conversation)
 * itself, Freshservice under a `ticket` (or `conversation`) key. Answers are read for the fields
 * used and nothing else.
 */

export interface FreshworksConfig {
  /** The account's address, for example https://acme.freshdesk.com. */
  url: string;
  /** The API key of the agent the replies are posted as (Profile settings, View API key). */
  apiKey: string;
}

/** One of the two products, as the adapter tells them apart. */
export interface FreshworksProduct {
  /** The product's name, in errors. */
  vendor: string;
  /** The address form, in errors. */
  example: string;
  /** The calls' names in errors: the API reference's sections. */
  calls: { viewTicket: string; replyTicket: string };
  /** The key the answers wrap their record in, or none when the answer is the record. */
  wrappedIn: { ticket: string; conversation: string } | null;
}

export type FreshworksStatus = { label: string; state: HelpdeskTicketState };

/**
 * `status` as the service sees it: Open and Pending wait on someone; Resolved can be reopened by the
 * requester's reply; Closed is done. An account on a paid plan adds its own statuses (ids from 6):
 * both products count them as stages before Resolved (a requester's reply moves any of them back to
 * Open), so they are open here too, and a custom status an account uses to mean done never destroys.
 */
const FRESHWORKS_STATUSES: Readonly<Record<number, FreshworksStatus>> = {
  2: { label: 'Open', state: 'open' },
  3: { label: 'Pending', state: 'open' },
  4: { label: 'Resolved', state: 'resolved' },
  5: { label: 'Closed', state: 'closed' },
};
const FIRST_CUSTOM_STATUS = 6;

/** What a status means, or null for a value that is no status (missing, 1 or less, not a whole number). */
const statusOf = (value: unknown): FreshworksStatus | null => {
  if (!Number.isSafeInteger(value)) return null;
  const status = value as number;
  return FRESHWORKS_STATUSES[status] ?? (status >= FIRST_CUSTOM_STATUS ? { label: 'Custom', state: 'open' } : null);
};

/** The record an answer carries, where the product puts it; undefined when it is not there. */
const recordOf = (body: unknown, key: string | undefined): Record<string, unknown> | undefined => {
  const record = key === undefined ? body : isJsonObject(body) ? body[key] : undefined;
  return isJsonObject(record) ? record : undefined;
};

export class FreshworksHelpdesk implements HelpdeskAdapter {
  readonly #product: FreshworksProduct;
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  /** The whole header value: the API key is kept only in this form, and never shown. */
  readonly #authorization: string;

  constructor(product: FreshworksProduct, config: FreshworksConfig, setup: HelpdeskAdapterSetup = {}) {
    this.#product = product;
    ({ origin: this.#origin, clock: this.#clock, http: this.#http } = adapterBasics(config.url, product.vendor, product.example, setup));
    // The documented form of both products: the key as the user, any password, `X` by convention.
    this.#authorization = basicAuthorization(config.apiKey, 'X');
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const call = this.#product.calls.viewTicket;
    const id = this.#ticketIdOf(externalId, call);
    // A 401 is final: Basic credentials have no token to refresh, so `send`, never a second attempt.
    const { status, body } = await this.#http.send({ call, method: 'GET', url: this.#ticketUrl(id), headers: this.#headers() });
    const ticket = recordOf(body, this.#product.wrappedIn?.ticket);
    // A ticket under another id would verify the wrong ticket; one in another shape is not this product's answer.
    if (!ticket || String(ticket.id) !== id) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    // A ticket in the trash is no longer a ticket anyone works on: it verifies nothing, closed or not.
    if (ticket.deleted === true) throw new HelpdeskCallFailed('not_found', call, { status });
    const known = statusOf(ticket.status);
    if (!known) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    return { externalId: id, vendorStatus: `${known.label} (status ${ticket.status as number})`, state: known.state, readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = this.#product.calls.replyTicket;
    const id = this.#ticketIdOf(externalId, call);
    // The body alone: no cc or bcc, no sender address (the agent's default), and nothing that sets a status.
    const json = { body: plainTextAsHtml(text) };
    // A 201 with the API's JSON proves the reply was added (helpdesk-http.ts); its body tells the conversation's id.
    const { body } = await this.#http.send({ call, method: 'POST', url: `${this.#ticketUrl(id)}/reply`, headers: this.#headers(), json });
    const commentId = answeredId(recordOf(body, this.#product.wrappedIn?.conversation)?.id);
    return commentId === undefined ? {} : { commentId };
  }

  /** A ticket id is a positive integer: anything else cannot name one, nor reach another path. */
  #ticketIdOf(externalId: string, call: string): string {
    return ticketRefOf(externalId, POSITIVE_INTEGER_ID, call);
  }

  #ticketUrl(id: string) {
    return `${this.#origin}/api/v2/tickets/${id}`;
  }

  #headers() {
    return { Authorization: this.#authorization };
  }
}
