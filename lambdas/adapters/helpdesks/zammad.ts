import { iso, type Clock } from '#core/clock.ts';
import { setNewest } from '#core/bounded-map.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket } from '#core/helpdesk.ts';
import { adapterBasics, type HelpdeskAdapterSetup } from './adapter-basics.ts';
import { answeredId, isJsonObject, isPositiveInteger, type HelpdeskHttp } from './helpdesk-http.ts';
import { ticketRefOf } from './ticket-ref.ts';
import { ZammadStates } from './zammad-states.ts';

/**
 * The Zammad adapter (REST API v1, docs.zammad.org "API"; samples in
 * test/fixtures/helpdesk-apis/zammad-*.json):
 * - auth: `Authorization: Token token=<access token>` of an agent, on every call;
 * - tickets are named by their **number** (`22003`, what agents quote and the inbound recipe
 *   links), which no path takes: `GET /api/v1/tickets/search?query=number:22003` finds the ticket's
 *   id once (a number never changes, so it is kept), then
 * - read: `GET /api/v1/tickets/{id}`, taking `number` (checked) and `state_id`, whose state and
 *   state type come from `GET /api/v1/ticket_states?expand=true` (zammad-states.ts);
 * - reply: `POST /api/v1/ticket_articles` with a note, `internal: false` (the customer sees it),
 *   plain text; no state and no ticket change, so the reply never moves the ticket.
 * Answers are read for the fields used and nothing else.
 */

export interface ZammadConfig {
  /** The instance's address, for example https://acme.zammad.com. */
  url: string;
  /** An access token of the agent the replies are posted as (Profile, Token Access), with the `ticket.agent` permission. */
  accessToken: string;
}

/** The calls' names in errors: the documentation's sections (API, Ticket: Search, Show; States: List; Articles: Create). */
export const ZAMMAD_CALLS = {
  search: 'Zammad Tickets Search',
  show: 'Zammad Tickets Show',
  states: 'Zammad States List',
  createArticle: 'Zammad Articles Create',
} as const;

/**
 * A ticket number: digits only, as both of Zammad's number generators make them (Increment: the
 * system id then a counter; Date: the date then a counter), at most the column's 60. Digits cannot
 * add a term to the search query nor reach another path.
 */
const TICKET_NUMBER = /^[1-9][0-9]{0,59}$/;
/** The ids numbers were found under; a warm function serves many tickets, so the map stays bounded. */
const KNOWN_NUMBERS = 1_000;

export class ZammadHelpdesk implements HelpdeskAdapter {
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  /** The whole header value: the token is kept only in this form, and never shown. */
  readonly #authorization: string;
  readonly #states: ZammadStates;
  readonly #idOfNumber = new Map<string, number>();

  constructor(config: ZammadConfig, setup: HelpdeskAdapterSetup = {}) {
    ({ origin: this.#origin, clock: this.#clock, http: this.#http } = adapterBasics(config.url, 'Zammad', 'https://acme.zammad.com', setup));
    this.#authorization = `Token token=${config.accessToken}`;
    this.#states = new ZammadStates(this.#http, { call: ZAMMAD_CALLS.states, url: `${this.#origin}/api/v1/ticket_states?expand=true`, headers: () => this.#headers() }, this.#clock);
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const call = ZAMMAD_CALLS.show;
    const number = ticketRefOf(externalId, TICKET_NUMBER, call);
    const id = await this.#idOf(number);
    let answer;
    try {
      answer = await this.#http.send({ call, method: 'GET', url: `${this.#origin}/api/v1/tickets/${id}`, headers: this.#headers() });
    } catch (error) {
      // Gone (deleted) or out of reach: the number is looked up afresh next time.
      if (error instanceof HelpdeskCallFailed && error.reason === 'not_found') this.#idOfNumber.delete(number);
      throw error;
    }
    const { status, body } = answer;
    // A ticket under another id or number would verify the wrong ticket.
    if (!isJsonObject(body) || body.id !== id || body.number !== number || !isPositiveInteger(body.state_id)) {
      this.#idOfNumber.delete(number);
      throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    }
    const state = await this.#states.of(body.state_id);
    return { externalId: number, vendorStatus: `${state.name} (${state.typeName})`, state: state.state, readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = ZAMMAD_CALLS.createArticle;
    const ticketId = await this.#idOf(ticketRefOf(externalId, TICKET_NUMBER, call));
    // A note the customer sees (internal: false) as plain text: unlike an email article it sends
    // nothing by itself and needs no recipient. Nothing here names a state or a time unit.
    const json = { ticket_id: ticketId, body: text, content_type: 'text/plain', type: 'note', internal: false, sender: 'Agent' };
    // A 201 with the API's JSON proves the article was added (helpdesk-http.ts); its body tells the article's id.
    const { body } = await this.#http.send({ call, method: 'POST', url: `${this.#origin}/api/v1/ticket_articles`, headers: this.#headers(), json });
    const commentId = answeredId(isJsonObject(body) ? body.id : undefined);
    return commentId === undefined ? {} : { commentId };
  }

  /**
   * The ticket's id: kept from an earlier search, else searched for by number. The search is
   * Zammad's (Elasticsearch); its answer lists ticket ids and carries the tickets in `assets`, and
   * exactly one of them must have this number.
   */
  async #idOf(number: string): Promise<number> {
    const known = this.#idOfNumber.get(number);
    if (known !== undefined) return known;
    const call = ZAMMAD_CALLS.search;
    const query = new URLSearchParams({ query: `number:${number}`, limit: '2' });
    const { status, body } = await this.#http.send({ call, method: 'GET', url: `${this.#origin}/api/v1/tickets/search?${query}`, headers: this.#headers() });
    const found = isJsonObject(body) && Array.isArray(body.tickets) ? body.tickets : null;
    const assets = isJsonObject(body) && isJsonObject(body.assets) && isJsonObject(body.assets.Ticket) ? body.assets.Ticket : {};
    if (found === null) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    const matches = found.filter((id) => isPositiveInteger(id) && isJsonObject(assets[String(id)]) && (assets[String(id)] as Record<string, unknown>).number === number);
    if (matches.length === 0) throw new HelpdeskCallFailed('not_found', call, { status });
    if (matches.length > 1) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    const id = matches[0] as number;
    setNewest(this.#idOfNumber, number, id, KNOWN_NUMBERS);
    return id;
  }

  #headers() {
    return { Authorization: this.#authorization };
  }
}
