import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

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

/** An answer to send instead of the normal one; `raw` is sent as is, `body` as JSON. 'hang': never answer. */
export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: unknown; raw?: string } | 'hang';

export interface ZendeskCall {
  endpoint: ZendeskEndpoint | null;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw request body. */
  text: string;
  /** The answer sent: its status and JSON body, or 'hang'. */
  answer: { status: number; body: unknown } | 'hang';
  /** Whether the answer was scripted (answerNext) rather than the fake's own. */
  scripted: boolean;
}

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

const fixture = (name: string) => {
  const { _source: _, ...body } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'helpdesk-apis', name), 'utf8'));
  return body as Record<string, any>;
};
/** The vendor's ShowTicket example: the fields a real ticket carries beside `status`. */
const SHOW_EXAMPLE = fixture('zendesk-show-ticket.response.json').ticket;

const TICKET_PATH = /^\/api\/v2\/tickets\/(\d+)$/;
const scopeAllows = (scope: string, needed: 'read' | 'write') => scope.split(' ').some((s) => s === needed || s === `tickets:${needed}`);

export const startFakeZendesk = async (options: FakeZendeskOptions) => {
  const tickets = new Map<string, Ticket>();
  const tokens = new Map<string, { expiresAtMs: number | null; scope: string }>();
  const scripted: Record<ZendeskEndpoint, ScriptedAnswer[]> = { token: [], show: [], update: [] };
  const calls: ZendeskCall[] = [];
  const history: ZendeskCall[] = [];
  const hanging = new Set<ServerResponse>();
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

  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const method = req.method ?? '';
      const path = req.url ?? '';
      const { endpoint, id } = route(method, path);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      const script = endpoint === null ? undefined : scripted[endpoint].shift();
      const call: Omit<ZendeskCall, 'answer'> = { endpoint, method, path, headers, text, scripted: script !== undefined };
      if (script === 'hang') {
        hanging.add(res);
        calls.push({ ...call, answer: 'hang' });
        history.push({ ...call, answer: 'hang' });
        return;
      }
      let status: number;
      let body: unknown;
      if (script) {
        status = script.status;
        body = script.body;
        const raw = script.raw ?? (body === undefined ? '' : JSON.stringify(body));
        res.writeHead(status, { 'Content-Type': script.raw === undefined ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8', ...script.headers });
        res.end(raw);
      } else {
        [status, body] =
          endpoint === 'token' ? issueToken(text)
          : endpoint === null ? [404, { error: 'InvalidEndpoint', description: 'Not found' }]
          : (authorise(req, endpoint === 'show' ? 'read' : 'write') ?? (endpoint === 'show' ? show(id!) : update(id!, text)));
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      }
      calls.push({ ...call, answer: { status, body } });
      history.push({ ...call, answer: { status, body } });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    /** The calls since the last resetCalls. */
    calls,
    /** Every call since the start, for checks over the whole run (contract validation). */
    history,
    /** Calls to one endpoint. */
    callsTo: (endpoint: ZendeskEndpoint) => calls.filter((call) => call.endpoint === endpoint),
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
    /** The next answers of `endpoint`, in order, before the normal handling resumes. */
    answerNext: (endpoint: ZendeskEndpoint, ...answers: ScriptedAnswer[]) => scripted[endpoint].push(...answers),
    /** Forgets the calls and any scripted answers not used (tickets and tokens stay). */
    resetCalls: () => {
      calls.length = 0;
      for (const queue of Object.values(scripted)) queue.length = 0;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
};

export type FakeZendesk = Awaited<ReturnType<typeof startFakeZendesk>>;
