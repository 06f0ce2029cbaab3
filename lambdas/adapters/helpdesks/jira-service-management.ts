import { iso, systemClock, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskAdapter, type HelpdeskReply, type HelpdeskTicket, type HelpdeskTicketState } from '#core/helpdesk.ts';
import { basicAuthorization } from './basic-auth.ts';
import { answeredId, HelpdeskHttp, isJsonObject } from './helpdesk-http.ts';
import { helpdeskOrigin } from './helpdesk-origin.ts';

/**
 * The Jira Service Management Cloud adapter (Service Management Public REST API,
 * test/fixtures/helpdesk-apis/openapi/jsm.subset.json):
 * - auth: HTTP Basic with an Atlassian account's email and API token, on every call;
 * - read: getCustomerRequestByIdOrKey `GET /rest/servicedeskapi/request/{issueIdOrKey}`, taking
 *   `currentStatus.status` and `currentStatus.statusCategory` only;
 * - reply: createRequestComment `POST /rest/servicedeskapi/request/{issueIdOrKey}/comment` with
 *   exactly `{body, public: true}`.
 * Neither operation is marked experimental in the vendor's document, so no `X-ExperimentalApi`
 * header is sent. Answers are read for the fields used and nothing else: the vendor's schemas
 * forbid other fields (`additionalProperties: false`), but Atlassian adds fields, and a new one
 * must not stop a ticket being read.
 */

export interface JiraServiceManagementConfig {
  /** The site's address, for example https://acme.atlassian.net. */
  url: string;
  /** The Atlassian account the API token belongs to (the agent the replies are posted as). */
  email: string;
  /** An API token of that account (id.atlassian.com, Security, API tokens). */
  apiToken: string;
  /**
   * Names of workflow statuses in the Done category that mean closed rather than resolved (for
   * example `Closed`, `Cancelled`): compared trimmed and case-insensitively. Every other Done
   * status is `resolved`. A name here never makes a status outside the Done category count.
   */
  closedStatusNames?: string[];
}

export interface JiraServiceManagementOptions {
  clock?: Clock;
  /** Per call; see helpdesk-http.ts. */
  timeoutMs?: number;
  /** Plain http to 127.0.0.1: the local runtime and tests only. */
  allowLoopback?: boolean;
  http?: HelpdeskHttp;
}

/**
 * `currentStatus.statusCategory` as the service sees it. JSM's workflow statuses are named by each
 * site (`Waiting for support`, `Resolved`, `Closed`, `Canceled`, ...); only the category is fixed.
 * `DONE` is resolved, or closed when the site's status name is listed in `closedStatusNames`;
 * `UNDEFINED` (a status without a category) is not done, so it is open.
 */
export const JSM_CATEGORY_STATES = {
  NEW: 'open',
  INDETERMINATE: 'open',
  UNDEFINED: 'open',
  DONE: 'resolved',
} as const satisfies Record<string, HelpdeskTicketState>;
type JsmStatusCategory = keyof typeof JSM_CATEGORY_STATES;
const isJsmStatusCategory = (value: unknown): value is JsmStatusCategory => typeof value === 'string' && Object.hasOwn(JSM_CATEGORY_STATES, value);

/** The vendor's operationIds, as the calls are named in errors. */
export const JSM_GET_REQUEST = 'JSM getCustomerRequestByIdOrKey';
export const JSM_CREATE_COMMENT = 'JSM createRequestComment';

/**
 * An issue key (`ITSM-42`: the project key, an uppercase letter then uppercase letters, digits or
 * underscores, a dash and the issue's positive number) or a numeric issue id. Anything else
 * cannot name a request, and must not reach another path (`../`, `?`, `/comment`).
 */
const ISSUE_KEY = /^[A-Z][A-Z0-9_]{0,254}-[1-9][0-9]{0,17}$/;
const ISSUE_ID = /^[1-9][0-9]{0,18}$/;

type RequestRef = { kind: 'key' | 'id'; value: string };

const requestRefOf = (externalId: string, call: string): RequestRef => {
  const value = externalId.trim();
  if (ISSUE_KEY.test(value)) return { kind: 'key', value };
  if (ISSUE_ID.test(value)) return { kind: 'id', value };
  throw new HelpdeskCallFailed('not_found', call);
};


const statusName = (name: string) => name.trim().toLowerCase();

export class JiraServiceManagementHelpdesk implements HelpdeskAdapter {
  readonly #origin: string;
  readonly #http: HelpdeskHttp;
  readonly #clock: Clock;
  /** The whole header value: the email and token are kept only in this form, and never shown. */
  readonly #authorization: string;
  readonly #closedStatusNames: ReadonlySet<string>;

  constructor(config: JiraServiceManagementConfig, options: JiraServiceManagementOptions = {}) {
    this.#origin = helpdeskOrigin(config.url, 'Jira Service Management', 'https://acme.atlassian.net', options.allowLoopback === true);
    this.#clock = options.clock ?? systemClock;
    this.#http = options.http ?? new HelpdeskHttp({ timeoutMs: options.timeoutMs, clock: this.#clock, allowLoopback: options.allowLoopback });
    this.#authorization = basicAuthorization(config.email, config.apiToken);
    this.#closedStatusNames = new Set((config.closedStatusNames ?? []).map(statusName));
  }

  async readTicket(externalId: string): Promise<HelpdeskTicket> {
    const ref = requestRefOf(externalId, JSM_GET_REQUEST);
    // A 401 is final: Basic credentials have no token to refresh, so `send`, never a second attempt.
    const { status, body } = await this.#http.send({ call: JSM_GET_REQUEST, method: 'GET', url: this.#requestUrl(ref), headers: this.#headers() });
    const request = isJsonObject(body) ? body : null;
    const current = request && isJsonObject(request.currentStatus) ? request.currentStatus : null;
    const name = current?.status;
    const category = current?.statusCategory;
    if (!request || !sameRequest(request, ref) || typeof name !== 'string' || name.trim() === '' || !isJsmStatusCategory(category)) {
      throw new HelpdeskCallFailed('unexpected_answer', JSM_GET_REQUEST, { status });
    }
    const state: HelpdeskTicketState = category === 'DONE' && this.#closedStatusNames.has(statusName(name)) ? 'closed' : JSM_CATEGORY_STATES[category];
    return { externalId: ref.value, vendorStatus: `${name} (${category})`, state, readAt: iso(this.#clock.now()) };
  }

  async replyPublicly(externalId: string, text: string): Promise<HelpdeskReply> {
    const ref = requestRefOf(externalId, JSM_CREATE_COMMENT);
    // `public: true` is the customer-visible reply; JSM refuses a comment without `public` (400).
    const json = { body: text, public: true };
    // A 201 with the API's JSON proves the comment was added (helpdesk-http.ts); its body tells the comment's id.
    const { body } = await this.#http.send({
      call: JSM_CREATE_COMMENT,
      method: 'POST',
      url: `${this.#requestUrl(ref)}/comment`,
      headers: this.#headers(),
      json,
    });
    const commentId = answeredId(isJsonObject(body) ? body.id : undefined);
    return commentId === undefined ? {} : { commentId };
  }

  #requestUrl(ref: RequestRef) {
    return `${this.#origin}/rest/servicedeskapi/request/${ref.value}`;
  }

  #headers() {
    return { Authorization: this.#authorization };
  }
}

/**
 * Whether the answer is about the request asked for: a request under another key or id would
 * verify the wrong ticket. JSM echoes both; the one that names what was asked must match when
 * present. (A request moved to another project answers under its new key: that is refused too,
 * and the integration's ticket reference needs updating.)
 */
const sameRequest = (request: Record<string, unknown>, ref: RequestRef): boolean => {
  const echoed = ref.kind === 'key' ? request.issueKey : request.issueId;
  return echoed === undefined || String(echoed) === ref.value;
};
