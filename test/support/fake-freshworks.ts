import type { IncomingMessage } from 'node:http';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A Freshworks helpdesk account (Freshdesk, fake-freshdesk.ts; Freshservice, fake-freshservice.ts)
 * on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses one: View a Ticket and
 * Reply to a Ticket, which both products serve at the same paths with the same auth. It keeps state
 * as they do: tickets with a status (custom ones too), a trash flag and their conversations, and it
 * refuses what they refuse (Basic credentials whose user is not the agent's API key with 401, an
 * unknown ticket with 404, a reply without a body with 400). What differs stays in the product: the
 * vendor's ticket example each ticket is built on (so the adapter passes over the fields it does not
 * use), the created conversation's fields, and whether answers wrap their record in a key.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type FreshworksEndpoint = 'view' | 'reply';
export type FreshworksCall = HelpdeskCall<FreshworksEndpoint>;

export interface FakeFreshworksOptions {
  /** The agent's API key: the only Basic user accepted (the password is not checked, as neither product does). */
  apiKey: string;
}

export interface FreshworksConversation {
  id: number;
  body: string;
  /** Replies are public: they are sent to the requester. */
  private: false;
}

/** What one product answers in its own way. */
export interface FakeFreshworksProduct {
  /** The vendor's View a Ticket example, unwrapped: every ticket is it with its own id, status and trash flag. */
  ticketExample: Record<string, unknown>;
  /** The created conversation's fields, unwrapped, as the product answers a reply. */
  conversationOf: (conversation: FreshworksConversation, ticketId: number) => Record<string, unknown>;
  /** The keys answers wrap their record in (Freshservice), or null when an answer is the record (Freshdesk). */
  wrappedIn: { ticket: string; conversation: string } | null;
}

interface Ticket {
  status: number;
  deleted: boolean;
  conversations: FreshworksConversation[];
}

const TICKET_PATH = /^\/api\/v2\/tickets\/([^/?#]+)$/;
const REPLY_PATH = /^\/api\/v2\/tickets\/([^/?#]+)\/reply$/;

const INVALID_CREDENTIALS = { code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' };
const NOT_FOUND = { code: 'access_denied', message: 'Record not found' };
const missingBody = { description: 'Validation failed', errors: [{ field: 'body', message: 'Mandatory attribute missing', code: 'missing_field' }] };

export const startFakeFreshworks = async (product: FakeFreshworksProduct, options: FakeFreshworksOptions) => {
  const tickets = new Map<number, Ticket>();
  let nextConversationId = 5_000_100;
  const wrapped = (key: 'ticket' | 'conversation', record: Record<string, unknown>) => (product.wrappedIn ? { [product.wrappedIn[key]]: record } : record);

  /** The Basic user, whatever the password: both products read the API key alone. */
  const authorised = (req: IncomingMessage) => {
    const encoded = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const decoded = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8');
    return decoded.slice(0, decoded.indexOf(':')) === options.apiKey;
  };

  const find = (rawId: string) => (/^[1-9][0-9]*$/.test(rawId) ? tickets.get(Number(rawId)) : undefined);

  const view = (rawId: string): [number, unknown] => {
    const ticket = find(rawId);
    if (!ticket) return [404, NOT_FOUND];
    return [200, wrapped('ticket', { ...product.ticketExample, id: Number(rawId), status: ticket.status, deleted: ticket.deleted, updated_at: '2026-11-26T09:00:00Z' })];
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
    const conversation: FreshworksConversation = { id: nextConversationId++, body: request.body, private: false };
    ticket.conversations.push(conversation);
    return [201, wrapped('conversation', product.conversationOf(conversation, Number(rawId)))];
  };

  const route = (method: string, path: string): { endpoint: FreshworksEndpoint | null; id?: string } => {
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

export type FakeFreshworks = Awaited<ReturnType<typeof startFakeFreshworks>>;
