import type { IncomingMessage } from 'node:http';
import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A Jira Service Management Cloud site on loopback (127.0.0.1, a free port), as far as the helpdesk
 * adapter uses one: getCustomerRequestByIdOrKey and createRequestComment. It keeps state as JSM
 * does: customer requests under their key and issue id, each with a workflow status (a name the
 * site chose and its fixed category) and its comments; and it refuses what JSM refuses (Basic
 * credentials that are not the account's email and API token with 401, an unknown request with
 * 404, a comment without `public` with 400). Answers follow the vendor's examples in
 * test/fixtures/helpdesk-apis, so they carry the many fields the adapter must ignore.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type JsmEndpoint = 'request' | 'comment';
/** `CustomerRequestStatusDTO.statusCategory` in the vendor's document. */
export const JSM_STATUS_CATEGORIES = ['UNDEFINED', 'NEW', 'INDETERMINATE', 'DONE'] as const;
export type JsmStatusCategory = (typeof JSM_STATUS_CATEGORIES)[number];

export type JsmCall = HelpdeskCall<JsmEndpoint>;

export interface FakeJsmOptions {
  /** The Atlassian account and its API token, the only Basic credentials accepted. */
  email: string;
  apiToken: string;
  /** The fake's time, in ms, for the dates of comments and status changes. */
  now: () => number;
}

interface CustomerRequest {
  key: string;
  issueId: string;
  status: string;
  category: JsmStatusCategory;
  statusSince: number;
  comments: Array<{ id: string; body: string; public: boolean }>;
}

/** The vendor's getCustomerRequestByIdOrKey example: the fields a real request carries beside its status. */
const REQUEST_EXAMPLE = helpdeskSample('jsm-get-customer-request.response.json');
/** The vendor's createRequestComment 201 example. */
const COMMENT_EXAMPLE = helpdeskSample('jsm-create-request-comment.response.json');

const REQUEST_PATH = /^\/rest\/servicedeskapi\/request\/([^/?#]+)$/;
const COMMENT_PATH = /^\/rest\/servicedeskapi\/request\/([^/?#]+)\/comment$/;

/** JSM's `ErrorResponse`, worded after the document's description of each refusal. */
const error = (errorMessage: string) => ({ errorMessage });
const NOT_LOGGED_IN = error('The user is not logged in.');
const NO_SUCH_REQUEST = error('The customer request does not exist.');
const INVALID = error('The HTTP request is invalid.');

/** The path segment decoded, or null when it is not valid percent-encoding (which JSM answers with a 404). */
const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
};

/** `DateDTO`, as JSM renders an instant (in UTC here). */
const dateDto = (ms: number) => {
  const at = new Date(ms).toISOString();
  return { epochMillis: ms, friendly: at.slice(0, 16).replace('T', ' '), iso8601: at.replace(/\.\d{3}Z$/, '+0000'), jira: at.replace(/Z$/, '+0000') };
};

export const startFakeJsm = async (options: FakeJsmOptions) => {
  /** By key; `byId` points at the same records. */
  const requests = new Map<string, CustomerRequest>();
  const byId = new Map<string, CustomerRequest>();
  const expectedAuthorization = `Basic ${Buffer.from(`${options.email}:${options.apiToken}`, 'utf8').toString('base64')}`;
  let nextIssueId = 107001;
  let nextCommentId = 1000;
  let origin = '';

  const find = (keyOrId: string) => requests.get(keyOrId) ?? byId.get(keyOrId);

  const requestBody = (request: CustomerRequest) => ({
    ...REQUEST_EXAMPLE,
    issueId: request.issueId,
    issueKey: request.key,
    currentStatus: { status: request.status, statusCategory: request.category, statusDate: dateDto(request.statusSince) },
    _links: {
      jiraRest: `${origin}/rest/api/2/issue/${request.issueId}`,
      web: `${origin}/servicedesk/customer/portal/10/${request.key}`,
      agent: `${origin}/browse/${request.key}`,
      self: `${origin}/rest/servicedeskapi/request/${request.issueId}`,
    },
  });

  /**
   * Atlassian Cloud checks Basic credentials before anything else: a wrong email or API token
   * (or none) is a 401 whatever the resource.
   */
  const authorised = (req: IncomingMessage) => req.headers.authorization === expectedAuthorization;

  const show = (keyOrId: string): [number, unknown] => {
    const request = find(keyOrId);
    return request ? [200, requestBody(request)] : [404, NO_SUCH_REQUEST];
  };

  const comment = (keyOrId: string, text: string): [number, unknown] => {
    const request = find(keyOrId);
    if (!request) return [404, NO_SUCH_REQUEST];
    let body: { body?: unknown; public?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return [400, INVALID];
    }
    if (typeof body?.body !== 'string' || body.body.trim() === '') return [400, INVALID];
    // The document: 400 is "Returned if the HTTP request is invalid, e.g. missing the required `public`."
    if (typeof body.public !== 'boolean') return [400, INVALID];
    const added = { id: String(nextCommentId++), body: body.body, public: body.public };
    request.comments.push(added);
    return [
      201,
      {
        ...COMMENT_EXAMPLE,
        id: added.id,
        body: added.body,
        public: added.public,
        created: dateDto(options.now()),
        _links: { self: `${origin}/rest/servicedeskapi/request/${request.issueId}/comment/${added.id}` },
      },
    ];
  };

  const route = (method: string, path: string): { endpoint: JsmEndpoint | null; ref?: string } => {
    const commentRef = COMMENT_PATH.exec(path)?.[1];
    if (commentRef !== undefined && method === 'POST') return { endpoint: 'comment', ref: commentRef };
    const ref = REQUEST_PATH.exec(path)?.[1];
    if (ref !== undefined && method === 'GET') return { endpoint: 'request', ref };
    return { endpoint: null };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['request', 'comment'],
    route,
    answer: (req, { endpoint, ref }, text) =>
      !authorised(req) ? [401, NOT_LOGGED_IN]
      : endpoint === null || decoded(ref!) === null ? [404, NO_SUCH_REQUEST]
      : endpoint === 'request' ? show(decoded(ref!)!)
      : comment(decoded(ref!)!, text),
    contentTypes: { json: 'application/json;charset=UTF-8', raw: 'text/html;charset=UTF-8' },
  });
  origin = server.url;

  return {
    ...server,
    /** Creates the request (with the next issue id) or moves it to another status. */
    setRequest: (key: string, statusName: string, category: JsmStatusCategory) => {
      const existing = requests.get(key);
      if (existing) {
        Object.assign(existing, { status: statusName, category, statusSince: options.now() });
        return;
      }
      const request: CustomerRequest = { key, issueId: String(nextIssueId++), status: statusName, category, statusSince: options.now(), comments: [] };
      requests.set(key, request);
      byId.set(request.issueId, request);
    },
    /** The numeric issue id JSM gave the request, which names it as well as its key. */
    issueIdOf: (key: string) => requests.get(key)?.issueId,
    comments: (keyOrId: string) => find(keyOrId)?.comments ?? [],
  };
};

export type FakeJsm = Awaited<ReturnType<typeof startFakeJsm>>;
