import { iso, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { adapterBasics, type HelpdeskAdapterSetup } from './adapter-basics.ts';
import { basicAuthorization } from './basic-auth.ts';
import { answeredId, isJsonObject, type HelpdeskHttp } from './helpdesk-http.ts';
import { plainTextAsHtml } from './plain-text-html.ts';
import { POSITIVE_INTEGER_ID, ticketRefOf } from './ticket-ref.ts';

/**
 * The Freshdesk adapter (API v2, developers.freshdesk.com/api; samples in
 * test/fixtures/helpdesk-apis/freshdesk-*.json):
 * - auth: HTTP Basic with an agent's API key as the user and `X` as the password, on every call;
 * - read: View a Ticket `GET /api/v2/tickets/{id}`, taking `id` (checked), `status` and `deleted`;
 * - reply: Reply to a Ticket `POST /api/v2/tickets/{id}/reply` with `body` alone (HTML).
 * A reply rather than a note with `private: false`: a reply is what Freshdesk sends to the requester
 * by email and shows in the portal, while a public note is only shown in the portal (and emailed only
 * to addresses the note names), so a customer who never opens the portal would not see the link.
 * Answers are read for the fields used and nothing else. (Freshservice answers under a `ticket` key
 * and is not this adapter's.)
 */

export interface FreshdeskConfig {
  /** The account's address, for example https://acme.freshdesk.com. */
  url: string;
  /** The API key of the agent the replies are posted as (Profile settings, View API key). */
  apiKey: string;
}

/**
 * `status` as the service sees it: Open and Pending wait on someone; Resolved can be reopened by the
 * requester's reply; Closed is done. An account on a paid plan adds its own statuses (ids from 6):
 * Freshdesk counts them as stages before Resolved (a requester's reply moves any of them back to
 * Open), so they are open here too, and a custom status an account uses to mean done never destroys.
 */
export const FRESHDESK_STATUSES: Readonly<Record<number, { label: string; state: HelpdeskTicketState }>> = {
  2: { label: 'Open', state: 'open' },
  3: { label: 'Pending', state: 'open' },
  4: { label: 'Resolved', state: 'resolved' },
  5: { label: 'Closed', state: 'closed' },
};
const FIRST_CUSTOM_STATUS = 6;

/** The calls' names in errors: the API reference's sections. */
export const FRESHDESK_CALLS = {
  viewTicket: 'Freshdesk View a Ticket',
  replyTicket: 'Freshdesk Reply to a Ticket',
} as const;

/** A Freshdesk ticket id is a positive integer: anything else cannot name one, nor reach another path. */
const ticketIdOf = (externalId: string, call: string): string => ticketRefOf(externalId, POSITIVE_INTEGER_ID, call);

/** What a status means, or null for a value that is no status (missing, 1 or less, not a whole number). */
const statusOf = (value: unknown): { label: string; state: HelpdeskTicketState } | null => {
  if (!Number.isSafeInteger(value)) return null;
  const status = value as number;
  return FRESHDESK_STATUSES[status] ?? (status >= FIRST_CUSTOM_STATUS ? { label: 'Custom', state: 'open' } : null);
};

export class FreshdeskHelpdesk implements HelpdeskAdapter {
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  /** The whole header value: the API key is kept only in this form, and never shown. */
  readonly #authorization: string;

  constructor(config: FreshdeskConfig, setup: HelpdeskAdapterSetup = {}) {
    ({ origin: this.#origin, clock: this.#clock, http: this.#http } = adapterBasics(config.url, 'Freshdesk', 'https://acme.freshdesk.com', setup));
    // Freshdesk's documented form: the key as the user, any password, `X` by convention.
    this.#authorization = basicAuthorization(config.apiKey, 'X');
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const call = FRESHDESK_CALLS.viewTicket;
    const id = ticketIdOf(externalId, call);
    // A 401 is final: Basic credentials have no token to refresh, so `send`, never a second attempt.
    const { status, body } = await this.#http.send({ call, method: 'GET', url: this.#ticketUrl(id), headers: this.#headers() });
    // A ticket under another id would verify the wrong ticket.
    if (!isJsonObject(body) || String(body.id) !== id) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    // A ticket in the trash is no longer a ticket anyone works on: it verifies nothing, closed or not.
    if (body.deleted === true) throw new HelpdeskCallFailed('not_found', call, { status });
    const known = statusOf(body.status);
    if (!known) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    return { externalId: id, vendorStatus: `${known.label} (status ${body.status as number})`, state: known.state, readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = FRESHDESK_CALLS.replyTicket;
    const id = ticketIdOf(externalId, call);
    // The body alone: no cc or bcc, no sender address (the agent's default), and nothing that sets a status.
    const json = { body: plainTextAsHtml(text) };
    // A 201 proves the reply was added; its body only tells the conversation's id.
    const { body } = await this.#http.send({ call, method: 'POST', url: `${this.#ticketUrl(id)}/reply`, headers: this.#headers(), json, answer: 'optional' });
    const commentId = answeredId(isJsonObject(body) ? body.id : undefined);
    return commentId === undefined ? {} : { commentId };
  }

  #ticketUrl(id: string) {
    return `${this.#origin}/api/v2/tickets/${id}`;
  }

  #headers() {
    return { Authorization: this.#authorization };
  }
}
