import { iso, systemClock, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { answeredId, HelpdeskHttp, isJsonObject } from './helpdesk-http.ts';
import { helpdeskOrigin } from './helpdesk-origin.ts';
import { OAuthTokenCache, requestToken } from './oauth-token.ts';
import { POSITIVE_INTEGER_ID, ticketRefOf } from './ticket-ref.ts';

/**
 * The Zendesk Support adapter (Support API v2, test/fixtures/helpdesk-apis/openapi/zendesk.subset.json):
 * - token: `POST /oauth/tokens`, client-credentials grant of a confidential OAuth client, JSON body;
 * - read: ShowTicket `GET /api/v2/tickets/{ticket_id}`, taking `ticket.status` only;
 * - reply: UpdateTicket `PUT /api/v2/tickets/{ticket_id}` with only `ticket.comment {body, public: true}`.
 * Answers are read for the fields used and nothing else, so fields Zendesk adds do not break it.
 */

export interface ZendeskConfig {
  /** The account's address, for example https://acme.zendesk.com. */
  url: string;
  /** The OAuth client's Identifier and Secret (Admin Center, Apps and integrations, APIs, OAuth clients). */
  clientId: string;
  clientSecret: string;
}

export interface ZendeskOptions {
  clock?: Clock;
  /** Per call; see helpdesk-http.ts. */
  timeoutMs?: number;
  /**
   * The access token lifetime asked for (`expires_in`; Zendesk takes more than 300 and less than
   * 172,800 seconds). Asked for explicitly: clients made before 30 April 2026 otherwise get tokens
   * that never expire, and every cold start would leave another one alive.
   */
  tokenLifetimeSeconds?: number;
  /** Plain http to 127.0.0.1: the local runtime and tests only. */
  allowLoopback?: boolean;
  http?: HelpdeskHttp;
}

/** Read tickets (ShowTicket) and update them (UpdateTicket adds the comment); nothing else. */
export const ZENDESK_SCOPE = 'tickets:read tickets:write';
export const DEFAULT_ZENDESK_TOKEN_LIFETIME_SECONDS = 1_800;

/**
 * `ticket.status` (with custom ticket statuses, the status category) as the service sees it.
 * `pending` and `hold` wait on someone but are not done, so they are open; `solved` is resolved
 * (the requester can still reopen it); `closed` is final.
 */
export const ZENDESK_STATES = {
  new: 'open',
  open: 'open',
  pending: 'open',
  hold: 'open',
  solved: 'resolved',
  closed: 'closed',
} as const satisfies Record<string, HelpdeskTicketState>;
type ZendeskStatus = keyof typeof ZENDESK_STATES;
const isZendeskStatus = (value: unknown): value is ZendeskStatus => typeof value === 'string' && Object.hasOwn(ZENDESK_STATES, value);

const SHOW_TICKET = 'Zendesk ShowTicket';
const UPDATE_TICKET = 'Zendesk UpdateTicket';
const CREATE_TOKEN = 'Zendesk CreateTokenForGrantType';

/** Zendesk ticket ids are positive integers (`TicketId`, int64): anything else cannot name one, nor reach another path. */
const ticketIdOf = (externalId: string, call: string): string => ticketRefOf(externalId, POSITIVE_INTEGER_ID, call);

export class ZendeskHelpdesk implements HelpdeskAdapter {
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #tokens: OAuthTokenCache;
  readonly #clock: Clock;

  constructor(config: ZendeskConfig, options: ZendeskOptions = {}) {
    this.#origin = helpdeskOrigin(config.url, 'Zendesk', 'https://acme.zendesk.com', options.allowLoopback === true);
    this.#clock = options.clock ?? systemClock;
    this.#http = options.http ?? new HelpdeskHttp({ timeoutMs: options.timeoutMs, clock: this.#clock, allowLoopback: options.allowLoopback });
    const tokenRequest = {
      grant_type: 'client_credentials',
      client_id: config.clientId,
      client_secret: config.clientSecret,
      scope: ZENDESK_SCOPE,
      expires_in: options.tokenLifetimeSeconds ?? DEFAULT_ZENDESK_TOKEN_LIFETIME_SECONDS,
    };
    const url = `${this.#origin}/oauth/tokens`;
    this.#tokens = new OAuthTokenCache(() => requestToken(this.#http, { call: CREATE_TOKEN, method: 'POST', url, json: tokenRequest }), this.#clock);
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const id = ticketIdOf(externalId, SHOW_TICKET);
    const { status, body } = await this.#http.sendWithToken({ call: SHOW_TICKET, method: 'GET', url: this.#ticketUrl(id) }, this.#tokens);
    const ticket = isJsonObject(body) && isJsonObject(body.ticket) ? body.ticket : null;
    // A ticket under another id would verify the wrong ticket; Zendesk echoes the id it was asked for.
    const sameTicket = ticket !== null && (ticket.id === undefined || String(ticket.id) === id);
    if (!ticket || !sameTicket || !isZendeskStatus(ticket.status)) throw new HelpdeskCallFailed('unexpected_answer', SHOW_TICKET, { status });
    return { externalId: id, vendorStatus: ticket.status, state: ZENDESK_STATES[ticket.status], readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const id = ticketIdOf(externalId, UPDATE_TICKET);
    // Only the comment: the vendor's example also sets status, which a reply must never change.
    const json = { ticket: { comment: { body: text, public: true } } };
    // A 2xx with the API's JSON proves the comment was added (helpdesk-http.ts); its body tells the comment's id.
    const { body } = await this.#http.sendWithToken({ call: UPDATE_TICKET, method: 'PUT', url: this.#ticketUrl(id), json }, this.#tokens);
    const commentId = commentIdIn(body);
    return commentId === undefined ? {} : { commentId };
  }

  #ticketUrl(id: string) {
    return `${this.#origin}/api/v2/tickets/${id}`;
  }
}

/** The id of the `Comment` event of UpdateTicket's audit (TicketUpdateResponse.audit.events), if there is one. */
const commentIdIn = (body: unknown): string | undefined => {
  const events = isJsonObject(body) && isJsonObject(body.audit) && Array.isArray(body.audit.events) ? body.audit.events : [];
  const comment = events.find((event): event is Record<string, unknown> => isJsonObject(event) && event.type === 'Comment');
  return answeredId(comment?.id);
};
