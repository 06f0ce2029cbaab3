import type { IncomingMessage } from 'node:http';
import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A Freshdesk account on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses one:
 * View a Ticket and Reply to a Ticket. It keeps state as Freshdesk does: tickets with a status
 * (custom ones too), a trash flag and their conversations, and it refuses what Freshdesk refuses
 * (Basic credentials whose user is not the agent's API key with 401, an unknown ticket with 404, a
 * reply without a body with 400). A ticket is the vendor's example (only its leading fields were
 * collected) with its own id and status, so the adapter passes over the fields it does not use.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type FreshdeskEndpoint = 'view' | 'reply';
export type FreshdeskCall = HelpdeskCall<FreshdeskEndpoint>;

export interface FakeFreshdeskOptions {
  /** The agent's API key: the only Basic user accepted (the password is not checked, as Freshdesk does not). */
  apiKey: string;
}

export interface FreshdeskConversation {
  id: number;
  body: string;
  /** Replies are public: they are sent to the requester. */
  private: false;
}

interface Ticket {
  status: number;
  deleted: boolean;
  conversations: FreshdeskConversation[];
}

/** The vendor's View a Ticket example, as far as it was collected. */
const TICKET_EXAMPLE = helpdeskSample('freshdesk-view-ticket.response.partial.json');

const TICKET_PATH = /^\/api\/v2\/tickets\/([^/?#]+)$/;
const REPLY_PATH = /^\/api\/v2\/tickets\/([^/?#]+)\/reply$/;

const INVALID_CREDENTIALS = { code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' };
const NOT_FOUND = { code: 'access_denied', message: 'Record not found' };
const missingBody = { description: 'Validation failed', errors: [{ field: 'body', message: 'Mandatory attribute missing', code: 'missing_field' }] };

export const startFakeFreshdesk = async (options: FakeFreshdeskOptions) => {
  const tickets = new Map<number, Ticket>();
  let nextConversationId = 5_000_100;

  /** The Basic user, whatever the password: Freshdesk reads the API key alone. */
  const authorised = (req: IncomingMessage) => {
    const encoded = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const decoded = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8');
    return decoded.slice(0, decoded.indexOf(':')) === options.apiKey;
  };

  const find = (rawId: string) => (/^[1-9][0-9]*$/.test(rawId) ? tickets.get(Number(rawId)) : undefined);

  const view = (rawId: string): [number, unknown] => {
    const ticket = find(rawId);
    return ticket ? [200, { ...TICKET_EXAMPLE, id: Number(rawId), status: ticket.status, deleted: ticket.deleted, updated_at: '2026-11-26T09:00:00Z' }] : [404, NOT_FOUND];
  };

  const reply = (rawId: string, text: string): [number, unknown] => {
    const ticket = find(rawId);
    if (!ticket) return [404, NOT_FOUND];
    let request: { body?: unknown };
    try {
      request = JSON.parse(text);
    } catch {
      return [400, { description: 'Validation failed', errors: [{ field: '', message: 'Invalid JSON', code: 'invalid_json' }] }];
    }
    if (typeof request?.body !== 'string' || request.body === '') return [400, missingBody];
    const conversation: FreshdeskConversation = { id: nextConversationId++, body: request.body, private: false };
    ticket.conversations.push(conversation);
    return [
      201,
      {
        body: conversation.body,
        body_text: conversation.body.replace(/<[^>]*>/g, ''),
        id: conversation.id,
        user_id: 43_000_000_001,
        from_email: 'support@acme.freshdesk.com',
        cc_emails: [],
        bcc_emails: [],
        ticket_id: Number(rawId),
        replied_to: TICKET_EXAMPLE.cc_emails,
        attachments: [],
        created_at: '2026-11-26T09:00:00Z',
        updated_at: '2026-11-26T09:00:00Z',
      },
    ];
  };

  const route = (method: string, path: string): { endpoint: FreshdeskEndpoint | null; id?: string } => {
    const replyId = REPLY_PATH.exec(path)?.[1];
    if (replyId !== undefined && method === 'POST') return { endpoint: 'reply', id: replyId };
    const id = TICKET_PATH.exec(path)?.[1];
    if (id !== undefined && method === 'GET') return { endpoint: 'view', id };
    return { endpoint: null };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['view', 'reply'],
    route,
    answer: (req, { endpoint, id }, text) =>
      !authorised(req) ? [401, INVALID_CREDENTIALS]
      : endpoint === null ? [404, { code: 'invalid_url', message: 'The requested URL is invalid' }]
      : endpoint === 'view' ? view(id!)
      : reply(id!, text),
    contentTypes: { json: 'application/json; charset=utf-8', raw: 'text/html; charset=utf-8' },
  });

  return {
    ...server,
    /** Creates the ticket or moves it to another status (2 Open, 3 Pending, 4 Resolved, 5 Closed, 6 and up custom). */
    setTicket: (id: string | number, status: number, deleted = false) => {
      const existing = tickets.get(Number(id));
      if (existing) Object.assign(existing, { status, deleted });
      else tickets.set(Number(id), { status, deleted, conversations: [] });
    },
    statusOf: (id: string | number) => tickets.get(Number(id))?.status,
    conversations: (id: string | number) => tickets.get(Number(id))?.conversations ?? [],
  };
};

export type FakeFreshdesk = Awaited<ReturnType<typeof startFakeFreshdesk>>;
