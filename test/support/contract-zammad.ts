import type { ZammadCall } from './fake-zammad.ts';
import { at, collector, isPositiveInteger, isRecord, ownAnswer, parsedJson, sameList } from './helpdesk-contracts.ts';

/**
 * Zammad publishes no OpenAPI document, so its contract here is its API documentation's
 * (zammad/zammad-documentation, api/intro.rst, api/ticket/index.rst, api/ticket/states.rst,
 * api/ticket/articles.rst): token authentication, each call's path and parameters, the article an
 * agent creates, and the adapter's own rule that a reply is one note the customer sees and names no
 * state. The check answers a list of problems, empty when every call fits, for the adapter and
 * end-to-end tests alike.
 */

/** The fields the documentation's article creation shows (plain, with attachments, or on behalf of someone). */
const ARTICLE_FIELDS = ['ticket_id', 'to', 'cc', 'subject', 'body', 'content_type', 'type', 'internal', 'time_unit', 'sender', 'origin_by_id', 'attachments'];
/** What the adapter sends of them, in this order. */
const REPLY_FIELDS = ['ticket_id', 'body', 'content_type', 'type', 'internal', 'sender'];

/** Every call in `calls` that Zammad's documentation does not describe, or that the fake answered as Zammad would not. */
export const zammadContractProblems = (calls: readonly ZammadCall[]): string[] => {
  const { problems, check } = collector();
  for (const call of calls) {
    const where = at(call);
    if (call.endpoint === null) {
      problems.push(`${where}: no documented call is this request`);
      continue;
    }
    const [path = '', search = ''] = call.path.split('?', 2);
    const query = new URLSearchParams(search);
    check(/^Token token=\S+$/.test(call.headers.authorization ?? ''), `${where}: Authorization is not Token token=<access token>`);
    if (call.endpoint === 'articles') {
      check(call.method === 'POST' && path === '/api/v1/ticket_articles' && search === '', `${where}: not POST /api/v1/ticket_articles`);
      check(call.headers['content-type'] === 'application/json', `${where}: Content-Type is ${call.headers['content-type']}, not application/json`);
      const body = parsedJson(call.text);
      const article = body.ok && isRecord(body.value) ? body.value : null;
      check(article !== null && Object.keys(article).every((key) => ARTICLE_FIELDS.includes(key)), `${where}: the body has a field the documentation does not show`);
      check(
        article !== null && sameList(Object.keys(article), REPLY_FIELDS) && isPositiveInteger(article.ticket_id) && typeof article.body === 'string' && article.type === 'note' && article.internal === false,
        `${where}: the body is not one note the customer sees (internal false), and nothing else`,
      );
    } else {
      check(call.method === 'GET' && call.text === '', `${where}: a read is not a GET without a body`);
      if (call.endpoint === 'search') {
        check(path === '/api/v1/tickets/search', `${where}: not /api/v1/tickets/search`);
        check(sameList([...query.keys()], ['query', 'limit']) && /^number:[1-9][0-9]*$/.test(query.get('query') ?? '') && /^[1-9][0-9]*$/.test(query.get('limit') ?? ''), `${where}: the search is not number:<ticket number> with a limit`);
      } else if (call.endpoint === 'show') {
        check(/^\/api\/v1\/tickets\/[1-9][0-9]*$/.test(path) && search === '', `${where}: not /api/v1/tickets/{id} with a ticket id`);
      } else {
        check(path === '/api/v1/ticket_states' && search === 'expand=true', `${where}: not /api/v1/ticket_states?expand=true`);
      }
    }
    if (!ownAnswer(call)) continue;
    const { status, body } = call.answer;
    if (status >= 300) {
      check(isRecord(body) && typeof body.error === 'string', `answer to ${where}: ${status} without Zammad's error body`);
      continue;
    }
    const answerShape = {
      search: () => isRecord(body) && Array.isArray(body.tickets) && typeof body.tickets_count === 'number' && isRecord(body.assets),
      show: () => isRecord(body) && isPositiveInteger(body.id) && typeof body.number === 'string' && isPositiveInteger(body.state_id),
      states: () =>
        Array.isArray(body) &&
        body.every((state) => isRecord(state) && isPositiveInteger(state.id) && typeof state.name === 'string' && isPositiveInteger(state.state_type_id) && typeof state.state_type === 'string'),
      articles: () => status === 201 && isRecord(body) && isPositiveInteger(body.id) && isPositiveInteger(body.ticket_id) && typeof body.internal === 'boolean',
    }[call.endpoint];
    check(answerShape(), `answer to ${where}: not the documented answer`);
  }
  return problems;
};
