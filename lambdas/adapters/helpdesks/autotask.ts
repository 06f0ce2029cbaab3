import { iso, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket } from '#core/helpdesk.ts';
import { adapterBasics, type HelpdeskAdapterSetup } from './adapter-basics.ts';
import { notePicklistValuesOf } from './autotask-note-picklists.ts';
import { answeredId, isJsonObject, isPositiveInteger, type HelpdeskHttp } from './helpdesk-http.ts';
import { POSITIVE_INTEGER_ID, ticketRefOf } from './ticket-ref.ts';

/**
 * The Autotask PSA adapter, REST API v1.0 (Autotask developer help, "REST API": the Tickets and
 * TicketNotes entities; Autotask's REST Postman collection; sample in
 * test/fixtures/helpdesk-apis/autotask-create-ticket-note.request.json):
 * - base: `{zone}/atservicesrest/v1.0`, the zone's web services address (webservices{N}.autotask.net);
 * - auth: an API user's `UserName` and `Secret` and the integration's `ApiIntegrationCode` (its
 *   tracking identifier), as headers on every call;
 * - read: `GET /Tickets/{id}`, whose `item` carries `id` (checked) and `status` (a picklist id);
 * - reply: `POST /Tickets/{id}/Notes`, one note published to All Autotask Users (what customers see),
 *   its picklist values read from the instance first (autotask-note-picklists.ts); nothing that
 *   touches the ticket's status. Answers are read for the fields used and nothing else.
 */

export interface AutotaskConfig {
  /** The zone's address, for example https://webservices5.autotask.net; the API path is added here. */
  url: string;
  /** The API tracking identifier of the integration (its API user's Security tab). */
  integrationCode: string;
  /** The API user's Username (Key) and Password (Secret). */
  username: string;
  secret: string;
  /**
   * The status ids that mean the ticket is done (statuses are a picklist each instance sets; 5 is
   * Complete in Autotask's defaults, and is taken when none are given). Every other status is open.
   */
  closedStatusIds?: number[];
}

/** Where the REST API lives under the zone's address. */
export const AUTOTASK_API_PATH = '/atservicesrest/v1.0';
export const DEFAULT_AUTOTASK_CLOSED_STATUS_IDS: readonly number[] = [5];

/** The calls' names in errors: the entities and their operations as the developer help names them. */
export const AUTOTASK_CALLS = {
  getTicket: 'Autotask Tickets query item',
  noteFields: 'Autotask TicketNotes field information',
  createNote: 'Autotask TicketNotes create',
} as const;

/**
 * A ticket's id (`Id` in its webhook, as the recipe links it; not the ticket number `T20260314.0001`):
 * a positive integer (the REST models type it int64), within what a JSON number holds exactly.
 */
const ticketIdOf = (externalId: string, call: string): number => {
  const id = Number(ticketRefOf(externalId, POSITIVE_INTEGER_ID, call));
  if (!Number.isSafeInteger(id)) throw new HelpdeskCallFailed('not_found', call);
  return id;
};

/** The note's title: some ticket categories require one, and the customer sees it above the text. */
export const AUTOTASK_NOTE_TITLE = 'Secure link to send a credential';

export class AutotaskHelpdesk implements HelpdeskAdapter {
  readonly #api: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  readonly #closed: ReadonlySet<number>;
  /** The whole header values: the code, user and secret are kept only in this form, and never shown. */
  readonly #headers: Readonly<Record<string, string>>;

  constructor(config: AutotaskConfig, setup: HelpdeskAdapterSetup = {}) {
    const basics = adapterBasics(config.url, 'Autotask', 'https://webservices5.autotask.net', setup);
    ({ clock: this.#clock, http: this.#http } = basics);
    this.#api = `${basics.origin}${AUTOTASK_API_PATH}`;
    const closed = config.closedStatusIds?.length ? config.closedStatusIds : DEFAULT_AUTOTASK_CLOSED_STATUS_IDS;
    if (!closed.every(isPositiveInteger)) throw new TypeError('The Autotask closed status ids must be positive integers.');
    this.#closed = new Set(closed);
    this.#headers = Object.freeze({ ApiIntegrationCode: config.integrationCode, UserName: config.username, Secret: config.secret });
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const call = AUTOTASK_CALLS.getTicket;
    const id = ticketIdOf(externalId, call);
    // A 401 is final: the API user's secret has no token to refresh, so `send`, never a second attempt.
    const { status, body } = await this.#http.send({ call, method: 'GET', url: this.#ticketUrl(id), headers: this.#headers });
    // An id the API user cannot see, or that names no ticket, answers an empty item.
    if (isJsonObject(body) && body.item === null) throw new HelpdeskCallFailed('not_found', call, { status });
    const ticket = isJsonObject(body) && isJsonObject(body.item) ? body.item : null;
    // A ticket under another id would verify the wrong ticket; a status that is no picklist id is no status.
    if (!ticket || ticket.id !== id || !isPositiveInteger(ticket.status)) {
      throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    }
    const statusId = ticket.status as number;
    const closed = this.#closed.has(statusId);
    return { externalId: String(id), vendorStatus: `status ${statusId}${closed ? ' (closed)' : ''}`, state: closed ? 'closed' : 'open', readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = AUTOTASK_CALLS.createNote;
    const ticketID = ticketIdOf(externalId, call);
    const { publish, noteType } = await this.#notePicklistValues();
    // The note alone, in plain text (the API takes no Rich Text): no status, no resolution, no time entry.
    const json = { ticketID, title: AUTOTASK_NOTE_TITLE, description: text, noteType, publish };
    // A 2xx with the API's JSON proves the note was added (helpdesk-http.ts); its body tells the note's id.
    const { body } = await this.#http.send({ call, method: 'POST', url: `${this.#ticketUrl(ticketID)}/Notes`, headers: this.#headers, json });
    const commentId = answeredId(isJsonObject(body) ? body.itemId : undefined);
    return commentId === undefined ? {} : { commentId };
  }

  /** Read afresh for each reply: replies are rare, and an admin's change to the picklists then counts at once. */
  async #notePicklistValues() {
    const call = AUTOTASK_CALLS.noteFields;
    const { status, body } = await this.#http.send({ call, method: 'GET', url: `${this.#api}/TicketNotes/entityInformation/fields`, headers: this.#headers });
    const values = notePicklistValuesOf(body);
    if (!values) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    return values;
  }

  #ticketUrl(id: number) {
    return `${this.#api}/Tickets/${id}`;
  }
}
