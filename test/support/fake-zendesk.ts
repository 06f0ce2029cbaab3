import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A Zendesk Support account on loopback (127.0.0.1, a free port), as far as the helpdesk adapter
 * uses one: the client-credentials token endpoint, ShowTicket and UpdateTicket. It keeps state as
 * Zendesk does: tickets with a status and their comments, the tokens it issued with their expiry
 * and scope, and it refuses what Zendesk refuses (an unknown client, a token that is unknown or
 * expired, a missing scope, an update of a closed ticket). Answers follow the vendor's examples in
 * test/fixtures/helpdesk-apis, so they carry the many fields the adapter must ignore.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type ZendeskEndpoint = 'token' | 'show' | 'update';
export const ZENDESK_STATUSES = ['new', 'open', 'pending', 'hold', 'solved', 'closed'] as const;

export type ZendeskCall = HelpdeskCall<ZendeskEndpoint>;

export interface FakeZendeskOptions {
  clientId: string;
  clientSecret: string;
  /** The fake's time, in ms: tokens expire by it (share the adapter's fake clock). */
  now: () => number;
  /**
   * The lifetime of issued tokens: 'requested' (default) honours the request's `expires_in`;
   * null issues tokens that never expire and omits `expires_in`, as for clients made before 30 April 2026.
   */
  tokenLifetime?: 'requested' | number | null;
}

interface Ticket {
  status: string;
  comments: Array<{ id: number; body: string; public: boolean }>;
}

/** The vendor's ShowTicket example: the fields a real ticket carries beside `status`. */
const SHOW_EXAMPLE = helpdeskSample('zendesk-show-ticket.response.json').ticket;

const TICKET_PATH = /^\/api\/v2\/tickets\/(\d+)$/;
const scopeAllows = (scope: string, needed: 'read' | 'write') => scope.split(' ').some((s) => s === needed || s === `tickets:${needed}`);

export const startFakeZendesk = async (options: FakeZendeskOptions) => {
  const tickets = new Map<string, Ticket>();
  const tokens = new Map<string, { expiresAtMs: number | null; scope: string }>();
  let nextCommentId = 206091192547;
  let origin = '';

  const ticketBody = (id: string, ticket: Ticket) => ({ ...SHOW_EXAMPLE, id: Number(id), status: ticket.status, url: `${origin}/api/v2/tickets/${id}` });

  /** The bearer token's grant, or the refusal Zendesk gives: 401 for no or a dead token, 403 for a missing scope. */
  const authorise = (req: IncomingMessage, needed: 'read' | 'write'): [number, unknown] | null => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = token === undefined ? undefined : tokens.get(token);
    if (!grant || (grant.expiresAtMs !== null && options.now() >= grant.expiresAtMs)) return [401, { error: "Couldn't authenticate you" }];
    if (!scopeAllows(grant.scope, needed)) return [403, { error: 'Forbidden', description: 'You do not have access to this page.' }];
    return null;
  };

  const issueToken = (text: string): [number, unknown] => {
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(text);
    } catch {
      return [400, { error: 'invalid_request', error_description: 'The request body must be JSON.' }];
    }
    if (request.grant_type !== 'client_credentials' || request.client_id !== options.clientId || request.client_secret !== options.clientSecret) {
      return [401, { error: 'invalid_client', error_description: 'Client authentication failed.' }];
    }
    const requested = request.expires_in;
    if (requested !== undefined && (typeof requested !== 'number' || requested <= 300 || requested >= 172_800)) {
      return [400, { error: 'invalid_request', error_description: 'expires_in is out of range.' }];
    }
    const lifetime = options.tokenLifetime === undefined ? 'requested' : options.tokenLifetime;
    const expiresIn = lifetime === 'requested' ? ((requested as number | undefined) ?? 1_800) : lifetime;
    const token = randomBytes(24).toString('base64url');
    const scope = typeof request.scope === 'string' ? request.scope : 'read';
    tokens.set(token, { expiresAtMs: expiresIn === null ? null : options.now() + expiresIn * 1000, scope });
    return [201, { access_token: token, token_type: 'bearer', scope, ...(expiresIn === null ? {} : { expires_in: expiresIn }) }];
  };

  const show = (id: string): [number, unknown] => {
    const ticket = tickets.get(id);
    return ticket ? [200, { ticket: ticketBody(id, ticket) }] : [404, { error: 'RecordNotFound', description: 'Not found' }];
  };

  const update = (id: string, text: string): [number, unknown] => {
    const ticket = tickets.get(id);
    if (!ticket) return [404, { error: 'RecordNotFound', description: 'Not found' }];
    if (ticket.status === 'closed') {
      return [422, { error: 'RecordInvalid', description: 'Record validation errors', details: { status: [{ description: 'Status: closed prevents ticket update' }] } }];
    }
    let request: { ticket?: { comment?: { body?: unknown; public?: unknown } } };
    try {
      request = JSON.parse(text);
    } catch {
      return [400, { error: 'InvalidJSON', description: 'The request body must be JSON.' }];
    }
    const comment = request?.ticket?.comment;
    const events: unknown[] = [];
    if (comment && typeof comment.body === 'string') {
      // Zendesk's default for `public` on a later comment is the ticket's first comment's; ours are public.
      const added = { id: nextCommentId++, body: comment.body, public: comment.public !== false };
      ticket.comments.push(added);
      events.push({ id: added.id, type: 'Comment', body: added.body, public: added.public });
    }
    return [200, { audit: { events }, ticket: { id: Number(id), requester_id: 20978392, status: ticket.status, subject: SHOW_EXAMPLE.subject } }];
  };

  const route = (method: string, path: string): { endpoint: ZendeskEndpoint | null; id?: string } => {
    if (method === 'POST' && path === '/oauth/tokens') return { endpoint: 'token' };
    const id = TICKET_PATH.exec(path)?.[1];
    if (id !== undefined && method === 'GET') return { endpoint: 'show', id };
    if (id !== undefined && method === 'PUT') return { endpoint: 'update', id };
    return { endpoint: null };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['token', 'show', 'update'],
    route,
    answer: (req, { endpoint, id }, text) =>
      endpoint === 'token' ? issueToken(text)
      : endpoint === null ? [404, { error: 'InvalidEndpoint', description: 'Not found' }]
      : (authorise(req, endpoint === 'show' ? 'read' : 'write') ?? (endpoint === 'show' ? show(id!) : update(id!, text))),
    contentTypes: { json: 'application/json; charset=utf-8', raw: 'text/html; charset=utf-8' },
  });
  origin = server.url;

  return {
    ...server,
    setTicket: (id: string | number, status: string) => {
      const existing = tickets.get(String(id));
      if (existing) existing.status = status;
      else tickets.set(String(id), { status, comments: [] });
    },
    comments: (id: string | number) => tickets.get(String(id))?.comments ?? [],
    /** Every token issued so far, for looking for them where they must not be. */
    issuedTokens: () => [...tokens.keys()],
    /** Zendesk revoked every token (an admin revoked them, or the client's secret was rotated). */
    revokeTokens: () => tokens.clear(),
  };
};

export type FakeZendesk = Awaited<ReturnType<typeof startFakeZendesk>>;
