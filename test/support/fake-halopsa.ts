import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { startFakeHelpdeskServer, type FakeAnswer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A HaloPSA instance on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses one:
 * the client-credentials token endpoint (`/auth/token`), GET /api/Tickets/{id} and POST /api/Actions.
 * It keeps state as Halo does: tickets with a status id and Halo's own closed flag, the actions
 * added to each, the tokens it issued with their expiry and scope, and it refuses what Halo refuses
 * (an unknown client or tenant, a scope the API application was not granted, a body that is not a
 * form, a token that is unknown or expired, a missing scope, an action on a ticket it does not have).
 *
 * The subset of Halo's document it answers from (test/fixtures/helpdesk-apis/openapi) lost the
 * vendor's examples when it was vendored, so a ticket here is the webhook sample's ticket
 * (test/fixtures/helpdesks/halopsa-webhook.json) plus a choice of the other `Faults` properties a
 * real ticket carries, typed as the schema says: the adapter must pass over all of them.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type HaloPsaEndpoint = 'token' | 'ticket' | 'actions';

export type HaloPsaCall = HelpdeskCall<HaloPsaEndpoint>;

export interface FakeHaloPsaOptions {
  clientId: string;
  clientSecret: string;
  /** The fake's time, in ms: tokens expire by it (share the adapter's fake clock). */
  now: () => number;
  /** A Halo-hosted instance's tenant: token requests must then name it (`?tenant=`). */
  tenant?: string;
  /** The lifetime of issued tokens; Halo's is an hour. */
  tokenLifetimeSeconds?: number;
  /** The scopes the API application was granted (its Permissions tab). */
  grantedScopes?: string[];
}

interface Ticket {
  statusId: number;
  closed: boolean;
  openedAt: string;
  closedAt: string | null;
  actions: Array<{ id: number; note: string; hiddenfromuser: boolean }>;
}

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
/** The ticket of Halo's webhook sample: id, summary, status_id and client_id. */
const WEBHOOK_TICKET = JSON.parse(readFileSync(join(FIXTURES, 'helpdesks', 'halopsa-webhook.json'), 'utf8')).ticket as Record<string, unknown>;

/** Other `Faults` properties of a real ticket, with values of the schema's types. */
const TICKET_FIELDS = {
  summary: WEBHOOK_TICKET.summary,
  details: '<p>Laptop for the new starter in Finance, ready by Monday.</p>',
  client_id: WEBHOOK_TICKET.client_id,
  client_name: 'Acme Ltd',
  site_id: 18,
  site_name: 'Main',
  user_id: 42,
  user_name: 'Sam Carter',
  reportedby: 'sam.carter@acme.example',
  agent_id: 3,
  team: 'Service Desk',
  team_id: 1,
  tickettype_id: 1,
  priority_id: 3,
  impact: 3,
  urgency: 3,
  category_1: 'Hardware>Laptop',
  sla_id: 1,
  onhold: false,
  deleted: false,
  inactive: false,
  isbeingclosed: false,
  merged_into_id: 0,
  emailtolist: '',
  visible_child_tickets: 0,
} as const;

/** Halo's scopes a token request may name; `all` grants every other. */
const KNOWN_SCOPES = new Set(['all', 'all:standard', 'read:tickets', 'edit:tickets', 'read:customers', 'edit:customers', 'read:assets', 'edit:assets']);
/** `edit:tickets` also reads tickets, as Halo's does. */
const scopeAllows = (scope: string, needed: 'read' | 'edit') =>
  scope.split(' ').some((s) => s === 'all' || s === 'edit:tickets' || (needed === 'read' && s === 'read:tickets'));

const TICKET_PATH = /^\/api\/Tickets\/(\d+)$/;
/** The request media types of POST /Actions in Halo's document. */
const ACTION_MEDIA_TYPES = ['application/json-patch+json', 'application/json', 'text/json', 'application/*+json'];

export const startFakeHaloPsa = async (options: FakeHaloPsaOptions) => {
  const tickets = new Map<number, Ticket>();
  const tokens = new Map<string, { expiresAtMs: number; scope: string }>();
  /** Every token issued, access and refresh, revoked or not. */
  const issued: string[] = [];
  const granted = options.grantedScopes ?? ['read:tickets', 'edit:tickets'];
  let nextActionId = 5;

  const ticketBody = (id: number, ticket: Ticket) => ({
    id,
    ...TICKET_FIELDS,
    idsummary: `${String(id).padStart(6, '0')} - ${TICKET_FIELDS.summary}`,
    status_id: ticket.statusId,
    hasbeenclosed: ticket.closed,
    dateoccurred: ticket.openedAt,
    dateclosed: ticket.closedAt,
    lastincomingemail: ticket.openedAt,
  });

  /** The bearer token's grant, or Halo's refusal: 401 for no or a dead token, 403 for a missing scope. Neither has a body. */
  const authorise = (req: IncomingMessage, needed: 'read' | 'edit'): FakeAnswer | null => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = token === undefined ? undefined : tokens.get(token);
    if (!grant || options.now() >= grant.expiresAtMs) return [401, undefined, { 'WWW-Authenticate': 'Bearer' }];
    if (!scopeAllows(grant.scope, needed)) return [403, undefined];
    return null;
  };

  /** The token endpoint, as an OAuth 2.0 server refuses (RFC 6749 §5.2: 400 with an error code). */
  const issueToken = (req: IncomingMessage, query: URLSearchParams, text: string): FakeAnswer => {
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return [400, { error: 'invalid_request', error_description: 'The request body must be form-encoded.' }];
    }
    const form = new URLSearchParams(text);
    if (form.get('grant_type') !== 'client_credentials') return [400, { error: 'unsupported_grant_type' }];
    // On a hosted instance the tenant picks whose clients these are: under another, this one is unknown.
    const tenantMatches = options.tenant === undefined || query.get('tenant') === options.tenant;
    if (!tenantMatches || form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) {
      return [400, { error: 'invalid_client' }];
    }
    const requested = (form.get('scope') ?? '').split(' ').filter((s) => s !== '');
    const scopes = requested.length === 0 ? granted : requested;
    if (!scopes.every((s) => KNOWN_SCOPES.has(s) && (granted.includes(s) || granted.includes('all')))) return [400, { error: 'invalid_scope' }];
    const token = randomBytes(24).toString('base64url');
    const refresh = randomBytes(24).toString('base64url');
    const expiresIn = options.tokenLifetimeSeconds ?? 3_600;
    const scope = scopes.join(' ');
    tokens.set(token, { expiresAtMs: options.now() + expiresIn * 1000, scope });
    issued.push(token, refresh);
    return [200, { scope, token_type: 'Bearer', access_token: token, expires_in: expiresIn, refresh_token: refresh }];
  };

  const showTicket = (id: number): FakeAnswer => {
    const ticket = tickets.get(id);
    return ticket ? [200, ticketBody(id, ticket)] : [404, undefined];
  };

  const addActions = (req: IncomingMessage, text: string): FakeAnswer => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!ACTION_MEDIA_TYPES.includes(type) && !/^application\/[^/]+\+json$/.test(type)) return [415, undefined];
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch {
      return [400, undefined];
    }
    // The body is an array of Actions; a ticket it does not have is a 400 (the document declares no 404 here).
    const items = Array.isArray(request) ? (request as Array<Record<string, unknown>>) : [];
    if (items.length === 0 || !items.every((item) => typeof item === 'object' && item !== null && tickets.has(item.ticket_id as number))) return [400, undefined];
    let created: Record<string, unknown> = {};
    for (const item of items) {
      const ticket = tickets.get(item.ticket_id as number)!;
      const action = { id: nextActionId++, note: typeof item.note === 'string' ? item.note : '', hiddenfromuser: item.hiddenfromuser === true };
      ticket.actions.push(action);
      created = {
        id: action.id,
        ticket_id: item.ticket_id,
        datetime: new Date(options.now()).toISOString(),
        actionby_agent_id: 3,
        note: action.note,
        hiddenfromuser: action.hiddenfromuser,
        sendemail: item.sendemail === true,
        important: false,
        timetaken: 0,
      };
    }
    // Halo answers the action created as one object.
    return [201, created];
  };

  /** Routes by the path without its query; the token endpoint reads the query (`tenant`). */
  const route = (method: string, pathAndQuery: string): { endpoint: HaloPsaEndpoint | null; id?: number; query: URLSearchParams } => {
    const { pathname: path, searchParams: query } = new URL(pathAndQuery, 'http://fake');
    if (method === 'POST' && path === '/auth/token') return { endpoint: 'token', query };
    if (method === 'POST' && path === '/api/Actions') return { endpoint: 'actions', query };
    const id = TICKET_PATH.exec(path)?.[1];
    if (id !== undefined && method === 'GET') return { endpoint: 'ticket', id: Number(id), query };
    return { endpoint: null, query };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['token', 'ticket', 'actions'],
    route,
    answer: (req, { endpoint, id, query }, text) =>
      endpoint === 'token' ? issueToken(req, query, text)
      : endpoint === null ? [404, undefined]
      : (authorise(req, endpoint === 'ticket' ? 'read' : 'edit') ?? (endpoint === 'ticket' ? showTicket(id!) : addActions(req, text))),
    contentTypes: { json: 'application/json; charset=utf-8', raw: 'text/html; charset=utf-8' },
  });

  return {
    ...server,
    /** Adds a ticket or changes one: `closed` is Halo's `hasbeenclosed`, which its closed statuses set. */
    setTicket: (id: number, state: { statusId: number; closed?: boolean }) => {
      const at = new Date(options.now()).toISOString();
      const closed = state.closed === true;
      const existing = tickets.get(id);
      if (existing) {
        existing.closedAt = closed ? (existing.closed ? existing.closedAt : at) : null;
        existing.statusId = state.statusId;
        existing.closed = closed;
      } else {
        tickets.set(id, { statusId: state.statusId, closed, openedAt: at, closedAt: closed ? at : null, actions: [] });
      }
    },
    actions: (id: number) => tickets.get(id)?.actions ?? [],
    /** Every token issued so far, access and refresh, for looking for them where they must not be. */
    issuedTokens: () => [...issued],
    /** Halo revoked every token (an admin revoked them, or the application's secret was regenerated). */
    revokeTokens: () => tokens.clear(),
  };
};

export type FakeHaloPsa = Awaited<ReturnType<typeof startFakeHaloPsa>>;
