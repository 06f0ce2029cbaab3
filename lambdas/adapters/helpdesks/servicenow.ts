import { iso, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { adapterBasics, type HelpdeskAdapterSetup } from './adapter-basics.ts';
import { basicAuthorization } from './basic-auth.ts';
import { isJsonObject, type HelpdeskHttp } from './helpdesk-http.ts';
import { ticketRefOf } from './ticket-ref.ts';

/**
 * The ServiceNow adapter: the Table API on the Incident table (ServiceNow product documentation,
 * "Table API", ServiceNow/ServiceNowDocs markdown/api-reference/rest-apis/c_TableAPI.md; samples in
 * test/fixtures/helpdesk-apis/servicenow-*.json):
 * - auth: HTTP Basic with a dedicated integration user and its password, on every call;
 * - read: `GET /api/now/table/incident/{sys_id}`, or for an incident number
 *   `GET /api/now/table/incident?sysparm_query=number=INC0010001`, asking only for `sys_id`,
 *   `number` and `state`, as stored values (`sysparm_display_value=false`: "6", never a label);
 * - reply: `PATCH /api/now/table/incident/{sys_id}` with `comments` alone: the journal field
 *   "Additional comments (Customer visible)". Never `work_notes` (internal), never `state`.
 * Rate limits (429 with Retry-After, inbound REST API rate limiting) are the shared HTTP layer's.
 */

export interface ServiceNowConfig {
  /** The instance's address, for example https://acme.service-now.com. */
  url: string;
  /** The integration user (its User ID) and password; replies are posted as that user. */
  username: string;
  password: string;
}

/**
 * Incident `state` (stored values, the instance defaults) as the service sees it: New, In Progress
 * and On Hold wait on someone, so they are open; Resolved can still be reopened by the caller;
 * Closed and Canceled are final. A value outside this list (a state an instance added) is not
 * guessed at: the read fails as `unexpected_answer`, so it never destroys and the admin sees why.
 */
export const SERVICENOW_STATES = {
  '1': { label: 'New', state: 'open' },
  '2': { label: 'In Progress', state: 'open' },
  '3': { label: 'On Hold', state: 'open' },
  '6': { label: 'Resolved', state: 'resolved' },
  '7': { label: 'Closed', state: 'closed' },
  '8': { label: 'Canceled', state: 'closed' },
} as const satisfies Record<string, { label: string; state: HelpdeskTicketState }>;
type ServiceNowState = keyof typeof SERVICENOW_STATES;
const isServiceNowState = (value: unknown): value is ServiceNowState => typeof value === 'string' && Object.hasOwn(SERVICENOW_STATES, value);

/** The calls' names in errors: the Table API's operations, on the Incident table. */
export const SERVICENOW_CALLS = {
  getRecord: 'ServiceNow Table GET incident',
  queryByNumber: 'ServiceNow Table GET incident by number',
  patchRecord: 'ServiceNow Table PATCH incident',
} as const;

/**
 * An incident is named by its number (INC0010001: the prefix an instance sets in Number
 * maintenance, in capitals, then digits) or by its sys_id (32 lowercase hex digits). Neither form
 * holds `^`, `=` or `/`, so a reference can neither add a condition to the encoded query nor reach
 * another path.
 */
const SYS_ID = /^[0-9a-f]{32}$/;
const INCIDENT_NUMBER = /^[A-Z]{1,12}[0-9]{1,20}$/;
const INCIDENT_REF = new RegExp(`${SYS_ID.source}|${INCIDENT_NUMBER.source}`);

type IncidentRef = { field: 'sys_id' | 'number'; value: string };

const incidentRefOf = (externalId: string, call: string): IncidentRef => {
  const value = ticketRefOf(externalId, INCIDENT_REF, call);
  return { field: SYS_ID.test(value) ? 'sys_id' : 'number', value };
};

/** Only what a read needs; stored values, whatever the integration user's display preferences. */
const READ_PARAMETERS = { sysparm_fields: 'sys_id,number,state', sysparm_display_value: 'false' };

export class ServiceNowHelpdesk implements HelpdeskAdapter {
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  /** The whole header value: the user and password are kept only in this form, and never shown. */
  readonly #authorization: string;

  constructor(config: ServiceNowConfig, setup: HelpdeskAdapterSetup = {}) {
    ({ origin: this.#origin, clock: this.#clock, http: this.#http } = adapterBasics(config.url, 'ServiceNow', 'https://acme.service-now.com', setup));
    this.#authorization = basicAuthorization(config.username, config.password);
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const ref = incidentRefOf(externalId, SERVICENOW_CALLS.getRecord);
    const { incident, status, call } = await this.#find(ref);
    if (!isServiceNowState(incident.state)) throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    const known = SERVICENOW_STATES[incident.state];
    return { externalId: ref.value, vendorStatus: `${known.label} (state ${incident.state})`, state: known.state, readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const call = SERVICENOW_CALLS.patchRecord;
    const ref = incidentRefOf(externalId, call);
    // The PATCH names the record by sys_id only: a number is looked up first.
    const sysId = ref.field === 'sys_id' ? ref.value : (await this.#find(ref)).incident.sys_id;
    // Only the customer-visible journal field; the answer is asked to carry the sys_id alone, as the
    // whole incident is not needed. A 200 with the API's JSON proves the comment was added; it names no entry.
    const url = `${this.#origin}/api/now/table/incident/${sysId}?${new URLSearchParams({ sysparm_fields: 'sys_id' })}`;
    await this.#http.send({ call, method: 'PATCH', url, headers: this.#headers(), json: { comments: text } });
    return {};
  }

  /**
   * The incident's record, read as the reference names it. The answer must be about that incident
   * (its sys_id or number echoed): another record would verify the wrong ticket.
   */
  async #find(ref: IncidentRef): Promise<{ incident: { sys_id: string; state: unknown }; status: number; call: string }> {
    const byId = ref.field === 'sys_id';
    const call = byId ? SERVICENOW_CALLS.getRecord : SERVICENOW_CALLS.queryByNumber;
    const query = byId
      ? READ_PARAMETERS
      : // Two at most: one is the incident, a second would make the number ambiguous. No count(*) is needed.
        { sysparm_query: `number=${ref.value}`, ...READ_PARAMETERS, sysparm_limit: '2', sysparm_no_count: 'true' };
    const path = byId ? `/api/now/table/incident/${ref.value}` : '/api/now/table/incident';
    // A 401 is final: Basic credentials have no token to refresh, so `send`, never a second attempt.
    const { status, body } = await this.#http.send({ call, method: 'GET', url: `${this.#origin}${path}?${new URLSearchParams(query)}`, headers: this.#headers() });
    const result = isJsonObject(body) ? body.result : undefined;
    // A query that matches nothing answers 200 with an empty list (Table API v2; v1 answers 404).
    if (!byId && Array.isArray(result) && result.length === 0) throw new HelpdeskCallFailed('not_found', call, { status });
    const incident = byId ? result : Array.isArray(result) && result.length === 1 ? result[0] : undefined;
    if (!isJsonObject(incident) || incident[ref.field] !== ref.value || typeof incident.sys_id !== 'string' || !SYS_ID.test(incident.sys_id)) {
      throw new HelpdeskCallFailed('unexpected_answer', call, { status });
    }
    return { incident: { sys_id: incident.sys_id, state: incident.state }, status, call };
  }

  #headers() {
    return { Authorization: this.#authorization };
  }
}
