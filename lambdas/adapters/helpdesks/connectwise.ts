import { iso, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket } from '#core/helpdesk.ts';
import { adapterBasics, type HelpdeskAdapterSetup } from './adapter-basics.ts';
import { basicAuthorization } from './basic-auth.ts';
import { answeredId, isJsonObject, type HelpdeskHttp } from './helpdesk-http.ts';
import { int32TicketIdOf } from './ticket-ref.ts';

/**
 * The ConnectWise PSA (Manage) adapter, REST API 3.0 (operations and fields as the vendor's OpenAPI
 * "ConnectWise Manage Public Endpoints" 2026.4 names them; samples in
 * test/fixtures/helpdesk-apis/connectwise-*.json):
 * - base: `{site}/v4_6_release/apis/3.0`, the codebase alias ConnectWise's cloud and its public
 *   clients use (developer.connectwise.com; ConnectWise's own "Developer Guide");
 * - auth: HTTP Basic with `{companyId}+{publicKey}` as the user and the private key as the password
 *   (an API member's keys), plus the `clientId` header ConnectWise requires on every call (the
 *   developer client id, developer.connectwise.com/ClientID), on every call;
 * - read: getServiceTicketsById `GET /service/tickets/{id}?fields=id,closedFlag,status`;
 * - reply: postServiceTicketsByParentIdNotes `POST /service/tickets/{parentId}/notes` with a
 *   Discussion note (`detailDescriptionFlag`), not Internal, not Resolution; nothing that touches
 *   the ticket's status. Answers are read for the fields used and nothing else.
 */

export interface ConnectWiseConfig {
  /** The site address, for example https://api-na.myconnectwise.net; the API path is added here. */
  url: string;
  /** The company id members sign in with, and an API member's public and private keys. */
  companyId: string;
  publicKey: string;
  privateKey: string;
  /** The integration's client id (a GUID from developer.connectwise.com), sent as the `clientId` header. */
  clientId: string;
}

/** Where the REST API lives under the site: `v4_6_release` routes to the site's current release. */
export const CONNECTWISE_API_PATH = '/v4_6_release/apis/3.0';

/** The calls' names in errors: the OpenAPI document's operationIds. */
export const CONNECTWISE_CALLS = {
  getTicket: 'ConnectWise getServiceTicketsById',
  addNote: 'ConnectWise postServiceTicketsByParentIdNotes',
} as const;

/** Only what a read needs: a ticket carries a hundred fields. */
const READ_FIELDS = 'id,closedFlag,status';

/**
 * A Discussion note: the ticket's customer-facing thread (the portal, and the contact's email when the
 * ticket sends them). Internal Analysis is hidden from the customer, and Resolution is what a close
 * records, so both stay false; a note sets no status.
 */
const noteOf = (text: string) => ({ text, detailDescriptionFlag: true, internalAnalysisFlag: false, resolutionFlag: false });

/** The board status's name, as ConnectWise shows it (`>Closed`, `In Progress`), when the answer carries one. */
const statusNameOf = (status: unknown): string | undefined => (isJsonObject(status) && typeof status.name === 'string' && status.name.trim() !== '' ? status.name : undefined);

export class ConnectWiseHelpdesk implements HelpdeskAdapter {
  readonly #api: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  /** The whole header values: the keys and the client id are kept only in this form, and never shown. */
  readonly #headers: Readonly<Record<string, string>>;

  constructor(config: ConnectWiseConfig, setup: HelpdeskAdapterSetup = {}) {
    const basics = adapterBasics(config.url, 'ConnectWise PSA', 'https://api-na.myconnectwise.net', setup);
    ({ clock: this.#clock, http: this.#http } = basics);
    this.#api = `${basics.origin}${CONNECTWISE_API_PATH}`;
    this.#headers = Object.freeze({ Authorization: basicAuthorization(`${config.companyId}+${config.publicKey}`, config.privateKey), clientId: config.clientId });
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const call = CONNECTWISE_CALLS.getTicket;
    const id = int32TicketIdOf(externalId, call);
    const url = `${this.#ticketUrl(id)}?${new URLSearchParams({ fields: READ_FIELDS })}`;
    // A 401 is final: API keys have no token to refresh, so `send`, never a second attempt.
    const { status, body } = await this.#http.send({ call, method: 'GET', url, headers: this.#headers });
    // A ticket under another id would verify the wrong ticket.
    if (!isJsonObject(body) || body.id !== id) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    // ConnectWise sets closedFlag whenever the ticket reaches a status its board marks Closed,
    // whatever the status is called: the status names (`>Closed`, `Closed (resolved)`) are each
    // board's own, so they decide nothing here. A ticket that is not closed is open, resolved-looking
    // names included. An answer that leaves the flag out (or null, which the schema allows) says
    // nothing is closed, so it is open too; any other value is no answer this adapter can place.
    const closed = body.closedFlag ?? false;
    if (typeof closed !== 'boolean') throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    const name = statusNameOf(body.status) ?? 'no status';
    return { externalId: String(id), vendorStatus: closed ? `${name} (closed)` : name, state: closed ? 'closed' : 'open', readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = CONNECTWISE_CALLS.addNote;
    const id = int32TicketIdOf(externalId, call);
    // A 2xx with the API's JSON proves the note was added (helpdesk-http.ts); its body tells the note's id.
    const { body } = await this.#http.send({ call, method: 'POST', url: `${this.#ticketUrl(id)}/notes`, headers: this.#headers, json: noteOf(text) });
    const commentId = answeredId(isJsonObject(body) ? body.id : undefined);
    return commentId === undefined ? {} : { commentId };
  }

  #ticketUrl(id: number) {
    return `${this.#api}/service/tickets/${id}`;
  }
}
