import type { IncomingMessage } from 'node:http';
import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeHelpdeskServer, type HelpdeskCall } from './fake-helpdesk-server.ts';

export type { ScriptedAnswer } from './fake-helpdesk-server.ts';

/**
 * A Zammad instance on loopback (127.0.0.1, a free port), as far as the helpdesk adapter uses one:
 * ticket search, ticket show, the list of ticket states and article creation. It keeps state as
 * Zammad does: tickets with an internal id, a number and a state id, their articles, and the states
 * of a default install (the vendor's list) plus any a test adds; it searches `number:<n>` as
 * Zammad's search index does, and refuses what Zammad refuses (a token that is not the agent's with
 * 401, an unknown ticket with 404, an article without a body with 422). Answers follow the vendor's
 * examples in test/fixtures/helpdesk-apis, so they carry the many fields the adapter must ignore.
 *
 * `answerNext` scripts the next answers of one endpoint (a failure, a hang, an odd body), ahead of
 * the normal handling. Every call is kept, with what was answered, for the test to check.
 */

export type ZammadEndpoint = 'search' | 'show' | 'states' | 'articles';
export type ZammadCall = HelpdeskCall<ZammadEndpoint>;

export interface FakeZammadOptions {
  /** The agent's access token, the only credential accepted. */
  accessToken: string;
}

export interface ZammadArticle {
  id: number;
  ticketId: number;
  body: string;
  type: unknown;
  internal: unknown;
  contentType: unknown;
}

interface Ticket {
  id: number;
  number: string;
  stateId: number;
}

/** The vendor's examples: a ticket, the states of a default install, a created article. */
const TICKET_EXAMPLE = helpdeskSample('zammad-show-ticket.response.json');
export const ZAMMAD_DEFAULT_STATES = helpdeskSample('zammad-ticket-states.response.json').body as Array<Record<string, unknown>>;
const ARTICLE_EXAMPLE = helpdeskSample('zammad-create-article.response.json');

/** The state types Zammad seeds, by id: what `expand=true` names beside `state_type_id`. */
const SEEDED_STATE_TYPES: Readonly<Record<number, string>> = { 1: 'new', 2: 'open', 3: 'pending reminder', 4: 'pending action', 5: 'closed', 6: 'merged', 7: 'removed' };

/** The default install's state ids by name. */
export const ZAMMAD_STATE_IDS = Object.fromEntries(ZAMMAD_DEFAULT_STATES.map((state) => [state.name, state.id])) as Record<string, number>;

const TICKET_PATH = /^\/api\/v1\/tickets\/([^/?#]+)$/;
const NUMBER_QUERY = /^number:([0-9]+)$/;

const failure = (error: string) => ({ error, error_human: error });

export const startFakeZammad = async (options: FakeZammadOptions) => {
  const tickets = new Map<number, Ticket>();
  const articles: ZammadArticle[] = [];
  const states = ZAMMAD_DEFAULT_STATES.map((state) => ({ ...state }));
  /** Each state's type name, as `expand=true` gives it (`state_type`); a database restored elsewhere may pair other ids with the names. */
  const typeNames = new Map(states.map((state) => [state.id as number, SEEDED_STATE_TYPES[state.state_type_id as number]!]));
  /** The list as Zammad answers it: with `expand=true`, each state's type by name beside its id. */
  const listed = (query: URLSearchParams): [number, unknown] => [
    200,
    query.get('expand') === 'true' ? states.map((state) => ({ ...state, state_type: typeNames.get(state.id as number) })) : states,
  ];
  let nextTicketId = 40;
  let nextArticleId = 300;

  const ticketBody = (ticket: Ticket) => ({ ...TICKET_EXAMPLE, id: ticket.id, number: ticket.number, state_id: ticket.stateId, article_count: articles.filter((a) => a.ticketId === ticket.id).length });

  const authorised = (req: IncomingMessage) => req.headers.authorization === `Token token=${options.accessToken}`;

  /** Zammad's search answer: the ids found, their count, and the tickets themselves among the assets. */
  const search = (query: URLSearchParams): [number, unknown] => {
    const number = NUMBER_QUERY.exec(query.get('query') ?? '')?.[1];
    const limit = Number(query.get('limit') ?? 10);
    const found = [...tickets.values()].filter((ticket) => ticket.number === number).slice(0, limit);
    return [200, { tickets: found.map((ticket) => ticket.id), tickets_count: found.length, assets: { Ticket: Object.fromEntries(found.map((ticket) => [ticket.id, ticketBody(ticket)])) } }];
  };

  const show = (rawId: string): [number, unknown] => {
    const ticket = tickets.get(Number(rawId));
    return ticket && /^[1-9][0-9]*$/.test(rawId) ? [200, ticketBody(ticket)] : [404, failure(`Couldn't find Ticket with 'id'=${rawId}`)];
  };

  const createArticle = (text: string): [number, unknown] => {
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(text);
    } catch {
      return [422, failure('Unprocessable Entity')];
    }
    const ticket = tickets.get(request.ticket_id as number);
    if (!ticket) return [422, failure('No lookup value found for \'ticket\'')];
    if (typeof request.body !== 'string' || request.body === '') return [422, failure('Need at least article: body')];
    const article: ZammadArticle = { id: nextArticleId++, ticketId: ticket.id, body: request.body, type: request.type, internal: request.internal, contentType: request.content_type };
    articles.push(article);
    return [201, { ...ARTICLE_EXAMPLE, id: article.id, ticket_id: ticket.id, body: article.body, type: article.type, internal: article.internal, content_type: article.contentType, subject: null }];
  };

  const route = (method: string, url: string): { endpoint: ZammadEndpoint | null; id?: string; query: URLSearchParams } => {
    const [path = '', search = ''] = url.split('?', 2);
    const query = new URLSearchParams(search);
    if (method === 'GET' && path === '/api/v1/tickets/search') return { endpoint: 'search', query };
    if (method === 'GET' && path === '/api/v1/ticket_states') return { endpoint: 'states', query };
    if (method === 'POST' && path === '/api/v1/ticket_articles') return { endpoint: 'articles', query };
    const id = TICKET_PATH.exec(path)?.[1];
    if (method === 'GET' && id !== undefined) return { endpoint: 'show', id, query };
    return { endpoint: null, query };
  };

  const server = await startFakeHelpdeskServer({
    endpoints: ['search', 'show', 'states', 'articles'],
    route,
    answer: (req, { endpoint, id, query }, text) =>
      !authorised(req) ? [401, failure('authentication failed')]
      : endpoint === null ? [404, failure('No route matches')]
      : endpoint === 'search' ? search(query)
      : endpoint === 'show' ? show(id!)
      : endpoint === 'states' ? listed(query)
      : createArticle(text),
    contentTypes: { json: 'application/json; charset=utf-8', raw: 'text/html; charset=utf-8' },
  });

  return {
    ...server,
    /** Creates the ticket under its number (with the next internal id) or moves it to another state; answers its id. */
    setTicket: (number: string, stateName: string) => {
      const stateId = states.find((state) => state.name === stateName)?.id as number | undefined;
      if (stateId === undefined) throw new Error(`no state ${stateName}`);
      const existing = [...tickets.values()].find((ticket) => ticket.number === number);
      if (existing) {
        existing.stateId = stateId;
        return existing.id;
      }
      const ticket = { id: nextTicketId++, number, stateId };
      tickets.set(ticket.id, ticket);
      return ticket.id;
    },
    /** An admin adds a state of one of Zammad's state types (by default the seeded type with that id). */
    addState: (name: string, stateTypeId: number, typeName = SEEDED_STATE_TYPES[stateTypeId]!) => {
      const id = Math.max(...states.map((state) => state.id as number)) + 1;
      states.push({ ...ZAMMAD_DEFAULT_STATES[0], id, name, state_type_id: stateTypeId, default_create: false });
      typeNames.set(id, typeName);
      return id;
    },
    /** An admin moves a state to another type. */
    setStateType: (name: string, stateTypeId: number, typeName = SEEDED_STATE_TYPES[stateTypeId]!) => {
      const state = states.find((each) => each.name === name);
      if (!state) throw new Error(`no state ${name}`);
      state.state_type_id = stateTypeId;
      typeNames.set(state.id as number, typeName);
    },
    idOf: (number: string) => [...tickets.values()].find((ticket) => ticket.number === number)?.id,
    /** The ticket's articles, oldest first. */
    articles: (number: string) => articles.filter((article) => article.ticketId === [...tickets.values()].find((ticket) => ticket.number === number)?.id),
    /** The ticket's state name now. */
    stateOf: (number: string) => {
      const ticket = [...tickets.values()].find((each) => each.number === number);
      return states.find((state) => state.id === ticket?.stateId)?.name;
    },
  };
};

export type FakeZammad = Awaited<ReturnType<typeof startFakeZammad>>;
