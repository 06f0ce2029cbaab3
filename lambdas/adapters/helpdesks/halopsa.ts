import { iso, systemClock, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket } from '#core/helpdesk.ts';
import { HelpdeskHttp, isJsonObject, isPositiveInteger } from './helpdesk-http.ts';
import { helpdeskOrigin } from './helpdesk-origin.ts';
import { OAuthTokenCache, requestToken } from './oauth-token.ts';
import { int32TicketIdOf } from './ticket-ref.ts';

/**
 * The HaloPSA adapter (Halo API v2, test/fixtures/helpdesk-apis/openapi/halopsa.subset.json; the
 * same API serves HaloITSM and HaloCRM):
 * - token: `POST /auth/token`, client-credentials grant of an API application ("Client ID and
 *   Secret (Services)"), form-encoded; hosted instances name their tenant in `?tenant=`;
 * - read: `GET /api/Tickets/{id}` (get_tickets_id), taking `hasbeenclosed` and `status_id` only;
 * - reply: `POST /api/Actions` (post_actions) with one action: the note, not hidden from the user.
 * Answers are read for the fields used and nothing else: Halo's schemas forbid other properties,
 * but every Halo release adds some, so a field this snapshot does not know must not break a read.
 */

export interface HaloPsaConfig {
  /** The instance's address, for example https://acme.halopsa.com (its API is under /api, its token URL under /auth). */
  url: string;
  /** The API application's Client ID and Secret (Configuration, Integrations, Halo API, View Applications). */
  clientId: string;
  clientSecret: string;
  /** The tenant of a Halo-hosted instance, as its API Details show it; blank or absent for one hosted elsewhere. */
  tenant?: string;
  /**
   * The instance's status ids that count as resolved (status ids are set per instance; 8 is the
   * common default "Resolved"). Halo flags a closed ticket itself, so closed needs no list.
   */
  resolvedStatusIds?: number[];
}

export interface HaloPsaOptions {
  clock?: Clock;
  /** Per call; see helpdesk-http.ts. */
  timeoutMs?: number;
  /** Plain http to 127.0.0.1: the local runtime and tests only. */
  allowLoopback?: boolean;
  http?: HelpdeskHttp;
}

/**
 * Read tickets and add actions to them, nothing else: actions are part of a ticket in Halo, with no
 * scope of their own, so `edit:tickets` is what adds one. Not `all`, which integrations often ask
 * for and which would let a leaked token read customers, invoices and agents too. The API
 * application must be granted both (its Permissions tab): Halo refuses a scope it was not granted.
 */
export const HALOPSA_SCOPE = 'read:tickets edit:tickets';

/**
 * The calls' names in errors: the subset's operationIds (synthesized by the copy it was read from,
 * `{method}_{path}`; see its README). The token endpoint is not in the document and is named the same way.
 */
export const HALOPSA_CALLS = {
  token: 'HaloPSA post_auth_token',
  readTicket: 'HaloPSA get_tickets_id',
  addAction: 'HaloPSA post_actions',
} as const;

/** Halo ticket ids are positive integers; the path parameter is an int32, so a larger number names no ticket. */
const ticketIdOf = int32TicketIdOf;


export class HaloPsaHelpdesk implements HelpdeskAdapter {
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #tokens: OAuthTokenCache;
  readonly #clock: Clock;
  readonly #resolved: ReadonlySet<number>;

  constructor(config: HaloPsaConfig, options: HaloPsaOptions = {}) {
    this.#origin = helpdeskOrigin(config.url, 'HaloPSA', 'https://acme.halopsa.com', options.allowLoopback === true);
    const resolved = config.resolvedStatusIds ?? [];
    if (!resolved.every(isPositiveInteger)) throw new TypeError('The HaloPSA resolved status ids must be positive integers.');
    this.#resolved = new Set(resolved);
    this.#clock = options.clock ?? systemClock;
    this.#http = options.http ?? new HelpdeskHttp({ timeoutMs: options.timeoutMs, clock: this.#clock, allowLoopback: options.allowLoopback });
    const form = { grant_type: 'client_credentials', client_id: config.clientId, client_secret: config.clientSecret, scope: HALOPSA_SCOPE };
    // The tenant goes in the query, encoded: the origin itself may carry no query (helpdesk-origin.ts).
    const tenant = config.tenant?.trim() ?? '';
    const url = `${this.#origin}/auth/token${tenant === '' ? '' : `?${new URLSearchParams({ tenant })}`}`;
    this.#tokens = new OAuthTokenCache(() => requestToken(this.#http, { call: HALOPSA_CALLS.token, method: 'POST', url, form }), this.#clock);
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const call = HALOPSA_CALLS.readTicket;
    const id = ticketIdOf(externalId, call);
    const { status, body } = await this.#http.sendWithToken({ call, method: 'GET', url: `${this.#origin}/api/Tickets/${id}` }, this.#tokens);
    // A ticket under another id would verify the wrong ticket. Both fields are nullable in Halo's
    // schema; a null says nothing about the ticket's state, so it is not read as false or as open.
    const readable = isJsonObject(body) && body.id === id && typeof body.hasbeenclosed === 'boolean' && Number.isSafeInteger(body.status_id);
    if (!readable) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    const closed = body.hasbeenclosed as boolean;
    const statusId = body.status_id as number;
    return {
      externalId: String(id),
      vendorStatus: `status ${statusId}${closed ? ' (closed)' : ''}`,
      // Halo's own flag first: a closed ticket is closed whatever the instance calls its status.
      state: closed ? 'closed' : this.#resolved.has(statusId) ? 'resolved' : 'open',
      readAt: iso(this.#clock.now()),
    };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = HALOPSA_CALLS.addAction;
    const ticketId = ticketIdOf(externalId, call);
    // Only the note, shown to the user. Not `outcome` (optional in the schema, and its names are set
    // per instance: one the instance lacks could fail the reply), not `sendemail` or `new_status`,
    // which vendor examples set and a reply must leave to the instance's own rules.
    const json = [{ ticket_id: ticketId, note: text, hiddenfromuser: false }];
    // A 2xx with the API's JSON proves the action was added (helpdesk-http.ts); its body tells the action's id.
    const { body } = await this.#http.sendWithToken({ call, method: 'POST', url: `${this.#origin}/api/Actions`, json }, this.#tokens);
    const commentId = actionIdIn(body);
    return commentId === undefined ? {} : { commentId };
  }
}

/**
 * The id of the action created: the 201 answers the `Actions` object; an array of them (what was
 * posted) is read too, as a body is optional here and must not turn a posted reply into a failure.
 */
const actionIdIn = (body: unknown): string | undefined => {
  const action = Array.isArray(body) && body.length === 1 ? body[0] : body;
  const id = isJsonObject(action) ? action.id : undefined;
  return isPositiveInteger(id) ? String(id) : undefined;
};
