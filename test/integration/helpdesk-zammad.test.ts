import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZAMMAD_CALLS, ZammadHelpdesk } from '../../lambdas/adapters/helpdesks/zammad.ts';
import { ZAMMAD_CLOSED_FRESH_MS, ZAMMAD_STATES_FRESH_MS } from '../../lambdas/adapters/helpdesks/zammad-states.ts';
import { zammadContractProblems } from '../support/contract-zammad.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeZammad, ZAMMAD_DEFAULT_STATES, ZAMMAD_STATE_IDS, type FakeZammad } from '../support/fake-zammad.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';
import { helpdeskSample } from '../support/helpdesk-samples.ts';

/**
 * The Zammad adapter against a stateful fake instance over real HTTP on loopback: the state mapping
 * by state type (the default states and ones an admin adds), tickets named by number and found once
 * by search, the states read once and kept, references refused before any call, token auth on every
 * call and never a second attempt after a 401, the failure reasons, the reply's exact body (a note
 * the customer sees, nothing that moves the ticket), that no secret reaches an error, and that every
 * request and every answer of the fake fits Zammad's API documentation.
 */

const ACCESS_TOKEN = 'zammad-agent-token-Qm9yZ2VzLWFjY2Vzcy0xMjM0NTY';
const WRONG_TOKEN = 'zammad-revoked-token-000000000000000000000';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeZammad;
const { failure, showsNothing } = helpdeskFailures();

const adapter = (overrides: { accessToken?: string; timeoutMs?: number } = {}) =>
  new ZammadHelpdesk({ url: fake.url, accessToken: overrides.accessToken ?? ACCESS_TOKEN }, { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true });

/** A ticket in each state of a default install. */
const TICKETS = [
  ['31001', 'new', 'new (new)', 'open'],
  ['31002', 'open', 'open (open)', 'open'],
  ['31003', 'pending reminder', 'pending reminder (pending reminder)', 'open'],
  ['31004', 'pending close', 'pending close (pending action)', 'open'],
  ['31005', 'closed', 'closed (closed)', 'closed'],
  ['31006', 'merged', 'merged (merged)', 'closed'],
] as const;

const endpoints = () => fake.calls.map((call) => call.endpoint);

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeZammad({ accessToken: ACCESS_TOKEN });
  for (const [number, state] of TICKETS) fake.setTicket(number, state);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('ZammadHelpdesk.readTicket', () => {
  it.each(TICKETS)('reads ticket %s in state "%s" as "%s", %s', async (number, _state, vendorStatus, state) => {
    expect(await adapter().readTicket(number)).toEqual({ externalId: number, vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.calls.map((call) => [call.endpoint, call.path])).toEqual([
      ['search', `/api/v1/tickets/search?query=number%3A${number}&limit=2`],
      ['show', `/api/v1/tickets/${fake.idOf(number)}`],
      ['states', '/api/v1/ticket_states?expand=true'],
    ]);
  });

  it('finds a number once and reads the states once: later reads are one call each, and follow the ticket', async () => {
    const zammad = adapter();
    fake.setTicket('32001', 'open');
    expect((await zammad.readTicket('32001')).state).toBe('open');
    expect(endpoints()).toEqual(['search', 'show', 'states']);
    fake.resetCalls();
    fake.setTicket('32001', 'closed');
    expect(await zammad.readTicket('32001')).toMatchObject({ vendorStatus: 'closed (closed)', state: 'closed' });
    // Reopened: a verified close is only ever as good as the last read.
    fake.setTicket('32001', 'open');
    expect((await zammad.readTicket(' 32001 ')).state).toBe('open');
    expect((await zammad.readTicket('31005')).state).toBe('closed');
    expect(endpoints()).toEqual(['show', 'show', 'search', 'show']);
  });

  it('reads the states again once they are old, or at once for a state the kept list lacks', async () => {
    const zammad = adapter();
    await zammad.readTicket('31002');
    fake.resetCalls();
    clock.advance(ZAMMAD_STATES_FRESH_MS);
    await zammad.readTicket('31002');
    expect(endpoints()).toEqual(['show', 'states']);

    // An admin adds states: one of the closed type (however it is named), one that waits.
    fake.addState('resolved', 5);
    fake.addState('waiting for customer', 3);
    fake.setTicket('32002', 'resolved');
    fake.setTicket('32003', 'waiting for customer');
    fake.resetCalls();
    expect(await zammad.readTicket('32002')).toMatchObject({ vendorStatus: 'resolved (closed)', state: 'closed' });
    expect(await zammad.readTicket('32003')).toMatchObject({ vendorStatus: 'waiting for customer (pending reminder)', state: 'open' });
    expect(endpoints()).toEqual(['search', 'show', 'states', 'search', 'show']);
  });

  it('calls a state of a type it does not place, or a state id the instance does not list, an unexpected_answer', async () => {
    fake.addState('binned', 7);
    fake.setTicket('32004', 'binned');
    expect(await failure(adapter().readTicket('32004'))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.states });
    const id = fake.setTicket('32005', 'open');
    fake.answerNext('show', { status: 200, body: { ...helpdeskSample('zammad-show-ticket.response.json'), id, number: '32005', state_id: 999 } });
    expect(await failure(adapter().readTicket('32005'))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.states });
  });

  it('reads the vendor examples as they are, the states with their types named as expand=true adds them', async () => {
    const ticket = helpdeskSample('zammad-show-ticket.response.json');
    const seededTypes: Record<number, string> = { 1: 'new', 2: 'open', 3: 'pending reminder', 4: 'pending action', 5: 'closed', 6: 'merged', 7: 'removed' };
    const expanded = ZAMMAD_DEFAULT_STATES.map((state) => ({ ...state, state_type: seededTypes[state.state_type_id as number] }));
    fake.answerNext('search', { status: 200, body: { tickets: [ticket.id], tickets_count: 1, assets: { Ticket: { [ticket.id]: ticket } } } });
    fake.answerNext('show', { status: 200, body: ticket });
    fake.answerNext('states', { status: 200, body: expanded });
    expect(await adapter().readTicket(ticket.number)).toMatchObject({ externalId: '22003', vendorStatus: 'closed (closed)', state: 'closed' });
    expect(ZAMMAD_STATE_IDS).toMatchObject({ closed: 4, 'pending close': 7, merged: 5 });
  });

  it('never calls a state closed by its type id alone: a list without type names, or ids that name other types, is read by the names', async () => {
    // An instance that ignored expand=true: the ids say closed, but nothing names the type.
    const closedNumber = '31005';
    fake.answerNext('states', { status: 200, body: ZAMMAD_DEFAULT_STATES });
    expect(await failure(adapter().readTicket(closedNumber))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.states });
    // A restored database whose type 5 is "open": the name decides, so the ticket is open.
    fake.addState('restored waiting', 5, 'open');
    fake.setTicket('32010', 'restored waiting');
    expect(await adapter().readTicket('32010')).toMatchObject({ vendorStatus: 'restored waiting (open)', state: 'open' });
  });

  it('reads the states again before calling a ticket closed on a list over a minute old: a type an admin just changed is heeded', async () => {
    const zammad = adapter();
    fake.addState('done for now', 5);
    fake.setTicket('32011', 'done for now');
    expect((await zammad.readTicket('32011')).state).toBe('closed');
    fake.setStateType('done for now', 2);
    clock.advance(ZAMMAD_CLOSED_FRESH_MS - 1);
    fake.resetCalls();
    // Within the minute the kept list stands, and an open verdict never needs a fresh one.
    expect((await zammad.readTicket('32011')).state).toBe('closed');
    expect(endpoints()).toEqual(['show']);
    clock.advance(1);
    fake.resetCalls();
    expect(await zammad.readTicket('32011')).toMatchObject({ vendorStatus: 'done for now (open)', state: 'open' });
    expect(endpoints()).toEqual(['show', 'states']);
  });

  it('calls an answer about another ticket, or one it cannot read, an unexpected_answer', async () => {
    const id = fake.idOf('31002')!;
    const ticket = { ...helpdeskSample('zammad-show-ticket.response.json'), id, number: '31002', state_id: ZAMMAD_STATE_IDS.closed };
    const { state_id: _, ...withoutState } = ticket;
    const odd = [{ ...ticket, id: id + 1 }, { ...ticket, number: '31003' }, { ...ticket, id: String(id) }, withoutState, { ...ticket, state_id: null }, { ...ticket, state_id: '4' }, [ticket]];
    const zammad = adapter();
    for (const body of odd) {
      fake.answerNext('show', { status: 200, body });
      expect(await failure(zammad.readTicket('31002'))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.show });
    }
    fake.answerNext('show', { status: 200, raw: '<html>Zammad is starting</html>' });
    expect(await failure(zammad.readTicket('31002'))).toMatchObject({ reason: 'unexpected_answer' });
    fake.answerNext('states', { status: 200, body: { states: ZAMMAD_DEFAULT_STATES } });
    expect(await failure(zammad.readTicket('31002'))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.states });
    // The search: no list of tickets, or two tickets with the number.
    const other = adapter();
    const asset = { ...ticket, number: '31002' };
    fake.answerNext('search', { status: 200, body: { assets: {} } }, { status: 200, body: { tickets: [id, id + 50], tickets_count: 2, assets: { Ticket: { [id]: asset, [id + 50]: { ...asset, id: id + 50 } } } } });
    for (let i = 0; i < 2; i++) expect(await failure(other.readTicket('31002'))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.search });
  });

  it('answers not_found for an unknown number, a deleted ticket (looked up afresh next time), and a reference that is not a number without calling', async () => {
    expect(await failure(adapter().readTicket('99999'))).toMatchObject({ reason: 'not_found', status: 200, call: ZAMMAD_CALLS.search });
    // A search that finds tickets mentioning the number, none of them with it.
    fake.answerNext('search', { status: 200, body: { tickets: [1], tickets_count: 1, assets: { Ticket: { 1: { ...helpdeskSample('zammad-show-ticket.response.json'), id: 1, number: '1999990' } } } } });
    expect(await failure(adapter().readTicket('99999'))).toMatchObject({ reason: 'not_found' });

    const zammad = adapter();
    await zammad.readTicket('31001');
    fake.answerNext('show', { status: 404, body: { error: "Couldn't find Ticket" } });
    expect(await failure(zammad.readTicket('31001'))).toMatchObject({ reason: 'not_found', status: 404, call: ZAMMAD_CALLS.show });
    fake.resetCalls();
    await zammad.readTicket('31001');
    expect(endpoints()).toEqual(['search', 'show']);

    fake.resetCalls();
    const refused = ['#31001', 'Ticket#31001', '31001 OR number:31005', 'number:31001', '31001*', '031001', '0', '-1', '1.5', '1e5', '31001/../31005', '31001?expand=true', '３１００１', 'a', '', '   ', '1'.repeat(61)];
    for (const ref of refused) {
      const error = await failure(adapter().readTicket(ref));
      expect(error, JSON.stringify(ref)).toMatchObject({ reason: 'not_found', call: ZAMMAD_CALLS.show });
      expect(error.status).toBeUndefined();
    }
    expect(fake.calls).toEqual([]);
  });
});

describe('token auth', () => {
  it('sends exactly Token token=<access token> on every call', async () => {
    const zammad = adapter();
    await zammad.readTicket('31001');
    await zammad.replyPublicly('31001', 'Please use this link.');
    expect(fake.calls).toHaveLength(4);
    for (const call of fake.calls) {
      expect(call.headers.authorization).toBe(`Token token=${ACCESS_TOKEN}`);
      expect(call.headers.accept).toBe('application/json');
    }
  });

  it('refused (a revoked token: 401) is unauthorized, with no second attempt and nothing posted', async () => {
    const zammad = adapter({ accessToken: WRONG_TOKEN });
    expect(await failure(zammad.readTicket('31002'))).toMatchObject({ reason: 'unauthorized', status: 401, call: ZAMMAD_CALLS.search, transient: false });
    expect(await failure(zammad.replyPublicly('31002', 'x'))).toMatchObject({ reason: 'unauthorized', status: 401 });
    expect(fake.calls).toHaveLength(2);
    expect(fake.articles('31002')).toEqual([]);
  });

  it('classifies 403 (the agent lacks the ticket\'s group) as unauthorized', async () => {
    const zammad = adapter();
    await zammad.readTicket('31002');
    fake.answerNext('show', { status: 403, body: { error: 'Not authorized' } });
    expect(await failure(zammad.readTicket('31002'))).toMatchObject({ reason: 'unauthorized', status: 403 });
  });
});

describe('failures', () => {
  it('classifies 429 as rate_limited with Retry-After, 503 and 500 as unavailable, and does not retry', async () => {
    fake.answerNext('search', { status: 429, headers: { 'Retry-After': '20' }, body: { error: 'Too many requests' } }, { status: 503, headers: { 'Retry-After': '9' }, raw: 'Service Unavailable' });
    expect(await failure(adapter().readTicket('31001'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 20, transient: true });
    expect(await failure(adapter().readTicket('31001'))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 9 });
    fake.answerNext('articles', { status: 500, body: { error: 'Internal Server Error' } });
    expect(await failure(adapter().replyPublicly('31001', 'x'))).toMatchObject({ reason: 'unavailable', status: 500, call: ZAMMAD_CALLS.createArticle });
    expect(endpoints()).toEqual(['search', 'search', 'search', 'articles']);
  });

  it('ends a hanging search, show, states list and article in timeout within the configured timeout', async () => {
    for (const endpoint of ['search', 'show', 'states', 'articles'] as const) {
      const zammad = adapter({ timeoutMs: TIMEOUT_MS });
      fake.answerNext(endpoint, 'hang');
      const started = performance.now();
      const error = await failure(endpoint === 'articles' ? zammad.replyPublicly('31001', 'x') : zammad.readTicket('31001'));
      const elapsed = performance.now() - started;
      expect(error, endpoint).toMatchObject({ reason: 'timeout', transient: true });
      expect(elapsed).toBeLessThan(TIMEOUT_MS * 3 + 1_500);
    }
  });

  it('calls a redirect (to a login page) or another 4xx an unexpected_answer, never following it', async () => {
    fake.answerNext('search', { status: 302, headers: { Location: '/#login' } }, { status: 422, body: { error: 'Unprocessable Entity' } });
    expect(await failure(adapter().readTicket('31001'))).toMatchObject({ reason: 'unexpected_answer', status: 302 });
    expect(await failure(adapter().readTicket('31001'))).toMatchObject({ reason: 'unexpected_answer', status: 422 });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('ZammadHelpdesk.replyPublicly', () => {
  it('creates exactly one note the customer sees, as plain text, and answers its id; the ticket stays as it was', async () => {
    const text = 'Please submit the requested credential here: https://example.invalid/r/EXAMPLE\nThe link works once.';
    const id = fake.setTicket('33001', 'pending reminder');
    const reply = await adapter().replyPublicly('33001', text);
    const [lookup, call, ...more] = fake.calls;
    expect(more).toEqual([]);
    expect(lookup!.endpoint).toBe('search');
    expect(call).toMatchObject({ endpoint: 'articles', method: 'POST', path: '/api/v1/ticket_articles' });
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.text).toBe(JSON.stringify({ ticket_id: id, body: text, content_type: 'text/plain', type: 'note', internal: false, sender: 'Agent' }));
    const posted = fake.articles('33001');
    expect(posted).toEqual([{ id: expect.any(Number), ticketId: id, body: text, type: 'note', internal: false, contentType: 'text/plain' }]);
    expect(reply).toEqual({ commentId: String(posted[0]!.id) });
    expect(fake.stateOf('33001')).toBe('pending reminder');
  });

  it('sends only fields of the vendor example, internal false as it has it, and none that time or route the ticket', async () => {
    const example = helpdeskSample('zammad-create-article.request.json');
    const zammad = adapter();
    await zammad.readTicket('31002');
    fake.resetCalls();
    await zammad.replyPublicly('31002', example.body);
    // The number was found by the read before: one call.
    expect(endpoints()).toEqual(['articles']);
    const sent = JSON.parse(fake.calls[0]!.text);
    expect(Object.keys(example)).toEqual(expect.arrayContaining(Object.keys(sent)));
    expect(sent).toMatchObject({ internal: example.internal, sender: example.sender, body: example.body });
    expect(sent).not.toHaveProperty('time_unit');
    expect(sent).not.toHaveProperty('state');
  });

  it('posts in a closed ticket too, without reopening it', async () => {
    expect(await adapter().replyPublicly('31005', 'after closing')).toEqual({ commentId: expect.any(String) });
    expect(fake.stateOf('31005')).toBe('closed');
  });

  it("tolerates the vendor answer and one without an id; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    const example = helpdeskSample('zammad-create-article.response.json');
    const { id: _, ...withoutId } = example;
    fake.answerNext('articles', { status: 201, body: example }, { status: 201, body: withoutId }, { status: 201, raw: 'Created' });
    const zammad = adapter();
    expect(await zammad.replyPublicly('31001', 'a')).toEqual({ commentId: '33' });
    expect(await zammad.replyPublicly('31001', 'b')).toEqual({});
    expect(await failure(zammad.replyPublicly('31001', 'c'))).toMatchObject({ reason: 'unexpected_answer', call: ZAMMAD_CALLS.createArticle });
  });

  it('answers not_found for an unknown number, and refuses a reference that is not one, posting nothing', async () => {
    expect(await failure(adapter().replyPublicly('99999', 'x'))).toMatchObject({ reason: 'not_found', call: ZAMMAD_CALLS.search });
    for (const ref of ['#31001', '31001 OR 1', '']) expect(await failure(adapter().replyPublicly(ref, 'x'))).toMatchObject({ reason: 'not_found', call: ZAMMAD_CALLS.createArticle });
    expect(endpoints()).toEqual(['search']);
  });
});

describe('configuration', () => {
  it('refuses an instance address that is not https, or is more than the instance', () => {
    const make = (url: string) => () => new ZammadHelpdesk({ url, accessToken: ACCESS_TOKEN });
    for (const url of ['http://acme.zammad.com', 'https://acme.zammad.com/#ticket/zoom/3', 'https://acme.zammad.com/api/v1', 'https://a:b@acme.zammad.com', fake.url]) {
      expect(make(url), url).toThrow(/^The Zammad URL/);
    }
    expect(make('https://acme.zammad.com')).not.toThrow();
  });
});

describe('secrets', () => {
  it('never shows the access token in an error, nor in the adapter when it is logged', async () => {
    const zammad = adapter();
    await zammad.readTicket('31001');
    showsNothing([ACCESS_TOKEN, WRONG_TOKEN], fake.url, zammad, 40);
  });
});

describe("Zammad's documented calls", () => {
  it('hold every request the adapter sent and every answer the fake gave in this file', () => {
    expect(zammadContractProblems(fake.history)).toEqual([]);
    const own = fake.history.filter((call) => !call.scripted && call.answer !== 'hang');
    expect(new Set(own.map((call) => call.endpoint))).toEqual(new Set(['search', 'show', 'states', 'articles']));
    expect(new Set(own.map((call) => (call.answer as { status: number }).status))).toEqual(new Set([200, 201, 401]));
  });

  it('can fail: an internal article, one that sets a state, and a search for more than the number are problems', () => {
    const reply = fake.history.find((call) => call.endpoint === 'articles' && !call.scripted)!;
    const body = JSON.parse(reply.text);
    expect(zammadContractProblems([{ ...reply, text: JSON.stringify({ ...body, internal: true }) }])).not.toEqual([]);
    expect(zammadContractProblems([{ ...reply, text: JSON.stringify({ ...body, state: 'closed' }) }])).not.toEqual([]);
    const search = fake.history.find((call) => call.endpoint === 'search' && !call.scripted)!;
    expect(zammadContractProblems([{ ...search, path: '/api/v1/tickets/search?query=number%3A1+OR+state.name%3Aclosed&limit=2' }])).not.toEqual([]);
  });
});
