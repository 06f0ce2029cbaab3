import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FRESHSERVICE_CALLS, FreshserviceHelpdesk } from '../../lambdas/adapters/helpdesks/freshservice.ts';
import { freshserviceContractProblems } from '../support/contract-freshservice.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeFreshservice, type FakeFreshservice, type ScriptedAnswer } from '../support/fake-freshservice.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';
import { helpdeskSample, REPLY_TEXT } from '../support/helpdesk-samples.ts';

/**
 * The Freshservice adapter against a stateful fake account over real HTTP on loopback: answers
 * read under their `ticket` and `conversation` keys (and Freshdesk's bare shape refused), the
 * status mapping (custom statuses included), the trash, a ticket answered under another id,
 * references refused before any call, Basic auth with the API key and `X` on every call and never a
 * second attempt after a 401, the failure reasons, the reply's exact body, that no secret reaches an
 * error, and that every request and every answer of the fake fits Freshservice's API reference.
 * What the adapter shares with Freshdesk's (freshworks.ts: the HTML of the reply, the id rule) is
 * tested in depth there; here it is checked once through Freshservice.
 */

const API_KEY = 'Fs4nW8pQ2kLx7Rv3Tz9M';
const WRONG_KEY = 'Fs0000000000000000000';
const START = Date.parse('2026-11-26T09:00:00Z');

/** Each default status and two custom ones an account added; the ticket with status s is 400 + s. */
const STATUSES = [
  [2, 'Open (status 2)', 'open'],
  [3, 'Pending (status 3)', 'open'],
  [4, 'Resolved (status 4)', 'resolved'],
  [5, 'Closed (status 5)', 'closed'],
  [6, 'Custom (status 6)', 'open'],
  [17, 'Custom (status 17)', 'open'],
] as const;

let clock: FakeClock;
let fake: FakeFreshservice;

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeFreshservice({ apiKey: API_KEY });
  for (const [status] of STATUSES) fake.setTicket(400 + status, status);
  return () => fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

const { failure, showsNothing } = helpdeskFailures();
const adapter = (apiKey = API_KEY, timeoutMs = 5_000) => new FreshserviceHelpdesk({ url: fake.url, apiKey }, { clock, timeoutMs, allowLoopback: true });

/** The reference's ticket, out of its `ticket` key. */
const sampleTicket = (): Record<string, unknown> => helpdeskSample('freshservice-view-ticket.response.sample.json').ticket;

describe('FreshserviceHelpdesk.readTicket', () => {
  it.each(STATUSES)('reads a ticket in status %s as "%s", %s', async (status, vendorStatus, state) => {
    const id = String(400 + status);
    expect(await adapter().readTicket(id)).toEqual({ externalId: id, vendorStatus, state, readAt: clock.now().toISOString() });
    const [call, ...more] = fake.calls;
    expect([call!.method, call!.path, more]).toEqual(['GET', `/api/v2/tickets/${id}`, []]);
    expect(call!.answer).toMatchObject({ status: 200, body: { ticket: { id: 400 + status, deleted: false } } });
  });

  it('follows a ticket from open to resolved, reopened, then closed', async () => {
    const freshservice = adapter();
    const states = [];
    for (const status of [2, 4, 2, 5]) {
      fake.setTicket(2101, status);
      states.push((await freshservice.readTicket(' 2101\n')).state);
    }
    expect(states).toEqual(['open', 'resolved', 'open', 'closed']);
  });

  it('reads the sample built from the API reference, the ticket under its `ticket` key', async () => {
    fake.answerNext('view', { status: 200, body: { ticket: sampleTicket() } });
    expect(await adapter().readTicket('20')).toMatchObject({ externalId: '20', vendorStatus: 'Open (status 2)', state: 'open' });
  });

  it('answers not_found for a ticket in the trash, whatever its status', async () => {
    fake.setTicket(2102, 5, true);
    expect(await failure(adapter().readTicket('2102'))).toMatchObject({ reason: 'not_found', status: 200, call: FRESHSERVICE_CALLS.viewTicket });
  });

  it('calls an answer about another ticket an unexpected_answer, never verifying it', async () => {
    fake.answerNext('view', { status: 200, body: { ticket: { ...sampleTicket(), id: 403, status: 5 } } }, { status: 200, body: { ticket: { ...sampleTicket(), id: '4020', status: 5 } } });
    for (let i = 0; i < 2; i++) expect(await failure(adapter().readTicket('402'))).toMatchObject({ reason: 'unexpected_answer', status: 200, call: FRESHSERVICE_CALLS.viewTicket });
  });

  it("calls Freshdesk's bare shape, a value that is no status, or an answer it cannot read an unexpected_answer", async () => {
    const ticket: Record<string, unknown> = { ...sampleTicket(), id: 402 };
    const { status: _, ...withoutStatus } = ticket;
    const odd = [
      ticket,
      { tickets: [ticket] },
      { ticket: [ticket] },
      { ticket: null },
      { ticket: withoutStatus },
      ...[null, 0, 1, -4, 4.5, '4', 'Resolved'].map((status) => ({ ticket: { ...ticket, status } })),
      { ticket: { ...ticket, id: undefined } },
      [{ ticket }],
    ];
    fake.answerNext('view', ...odd.map((body) => ({ status: 200, body })), { status: 200, raw: '<html>Freshservice is under maintenance</html>' }, { status: 204 });
    for (let i = 0; i < odd.length + 2; i++) {
      expect(await failure(adapter().readTicket('402'))).toMatchObject({ reason: 'unexpected_answer', transient: false, call: FRESHSERVICE_CALLS.viewTicket });
    }
  });
});

describe('FreshserviceHelpdesk.replyPublicly', () => {
  it('posts exactly one reply whose body is the text as HTML, and answers the id under `conversation`; the status stays', async () => {
    fake.setTicket(3101, 3);
    const reply = await adapter().replyPublicly('3101', REPLY_TEXT);
    expect(fake.calls.map((call) => [call.endpoint, call.method, call.path, call.headers['content-type']])).toEqual([['reply', 'POST', '/api/v2/tickets/3101/reply', 'application/json']]);
    const sent = JSON.parse(fake.calls[0]!.text);
    expect(Object.keys(sent)).toEqual(['body']);
    expect(sent.body).toContain('<a href="https://handoff.example/r/01HREQ#k=abc&#38;v=1">');
    const posted = fake.conversations(3101);
    expect(posted).toEqual([{ id: expect.any(Number), body: sent.body, private: false }]);
    expect(reply).toEqual({ commentId: String(posted[0]!.id) });
    expect(fake.statusOf(3101)).toBe(3);
  });

  it("sends the reference sample request for its text: a reply, without a note's `private` flag", async () => {
    const [request, note] = ['freshservice-reply-ticket.request.json', 'freshservice-add-note.request.json'].map((name) => helpdeskSample(name));
    await adapter().replyPublicly('404', request!.body);
    const sent = JSON.parse(fake.calls[0]!.text);
    expect([sent, 'private' in note!, 'private' in sent]).toEqual([request, true, false]);
  });

  it("reads the reference sample answer's conversation id, and a closed ticket takes a reply too", async () => {
    fake.answerNext('reply', { status: 201, body: helpdeskSample('freshservice-reply-ticket.response.sample.json') });
    expect(await adapter().replyPublicly('405', 'after closing')).toEqual({ commentId: '21005968159' });
    expect(await adapter().replyPublicly('405', 'after closing')).toEqual({ commentId: expect.any(String) });
    expect(fake.statusOf(405)).toBe(5);
  });

  it("tolerates an answer without the conversation's id (Freshdesk's bare shape included); a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    fake.answerNext('reply', { status: 201, body: { id: 77, body: 'x' } }, { status: 201, body: { conversation: { body: 'x' } } }, { status: 201, raw: 'Created' }, { status: 201 });
    for (const text of ['a', 'b']) expect(await adapter().replyPublicly('402', text)).toEqual({});
    for (const text of ['c', 'd']) expect(await failure(adapter().replyPublicly('402', text))).toMatchObject({ reason: 'unexpected_answer', call: FRESHSERVICE_CALLS.replyTicket });
    expect(fake.callsTo('reply')).toHaveLength(4);
  });
});

/** Reads ticket 402, or replies in it. */
const attempt = (endpoint: 'view' | 'reply', freshservice = adapter()) => (endpoint === 'view' ? freshservice.readTicket('402') : freshservice.replyPublicly('402', 'x'));

describe('refusals and failures', () => {
  it('sends exactly Basic base64(<API key>:X) on every call', async () => {
    for (const endpoint of ['view', 'reply'] as const) await attempt(endpoint);
    const basic = `Basic ${Buffer.from(`${API_KEY}:X`).toString('base64')}`;
    expect(fake.calls.map((call) => [call.headers.authorization, call.headers.accept])).toEqual(Array(2).fill([basic, 'application/json']));
  });

  it("answers the fake's own refusals, each in one call that posts nothing: a wrong or regenerated key is unauthorized (401), an unknown ticket not_found (404)", async () => {
    const wrongKey = adapter(WRONG_KEY);
    expect(await failure(wrongKey.readTicket('403'))).toMatchObject({ reason: 'unauthorized', status: 401, transient: false, call: FRESHSERVICE_CALLS.viewTicket });
    expect(await failure(wrongKey.replyPublicly('403', 'x'))).toMatchObject({ reason: 'unauthorized', status: 401, call: FRESHSERVICE_CALLS.replyTicket });
    expect(await failure(adapter().readTicket('999999'))).toMatchObject({ reason: 'not_found', status: 404, call: FRESHSERVICE_CALLS.viewTicket });
    expect(await failure(adapter().replyPublicly('999999', 'x'))).toMatchObject({ reason: 'not_found', status: 404, call: FRESHSERVICE_CALLS.replyTicket });
    expect(fake.calls).toHaveLength(4);
    expect(fake.conversations(403)).toEqual([]);
  });

  const ANSWERS: Array<[string, 'view' | 'reply', ScriptedAnswer, Record<string, unknown>]> = [
    [
      '429 with Retry-After',
      'view',
      { status: 429, headers: { 'Retry-After': '37', 'X-RateLimit-Total': '140', 'X-RateLimit-Remaining': '0' }, body: { message: 'You have exceeded the limit of requests per minute' } },
      { reason: 'rate_limited', status: 429, retryAfterSeconds: 37, transient: true },
    ],
    ['403 (an agent without access to the ticket)', 'view', { status: 403, body: { code: 'access_denied', message: 'You are not authorized to perform this action.' } }, { reason: 'unauthorized', status: 403 }],
    ['503', 'view', { status: 503, raw: 'Service Unavailable' }, { reason: 'unavailable', status: 503 }],
    ['a redirect (a renamed account)', 'view', { status: 302, headers: { Location: 'https://acme.freshservice.com/support/login' } }, { reason: 'unexpected_answer', status: 302 }],
    ['400', 'reply', { status: 400, body: { description: 'Validation failed', errors: [] } }, { reason: 'unexpected_answer', status: 400 }],
    ['500', 'reply', { status: 500, body: { message: 'Internal error' } }, { reason: 'unavailable', status: 500 }],
    ['no answer', 'view', 'hang', { reason: 'timeout', transient: true }],
    ['no answer', 'reply', 'hang', { reason: 'timeout', transient: true }],
  ];

  it.each(ANSWERS)('a call answered %s (%s) fails as the reason says, never tried again', async (_, endpoint, answer, expected) => {
    fake.answerNext(endpoint, answer);
    expect(await failure(attempt(endpoint, adapter(API_KEY, 400)))).toMatchObject(expected);
    expect(fake.calls).toHaveLength(1);
  });

  it.each(['0', '01', '-1', '1.5', '0x10', '402/reply', '402/notes', '402?include=conversations', '../402', '#INC-402', 'INC-402', 'SR-402', '', '1'.repeat(20)])(
    'refuses the reference %j, reading or replying, before any call',
    async (ref) => {
      for (const error of [await failure(adapter().readTicket(ref)), await failure(adapter().replyPublicly(ref, 'x'))]) {
        expect(error).toMatchObject({ reason: 'not_found', status: undefined });
      }
      expect(fake.calls).toEqual([]);
    },
  );

  it.each(['http://acme.freshservice.com', 'https://acme.freshservice.com/a/tickets/20', 'https://key:X@acme.freshservice.com'])('refuses the account address %s, naming Freshservice', (url) => {
    expect(() => new FreshserviceHelpdesk({ url, apiKey: API_KEY })).toThrow(/^The Freshservice URL/);
    expect(() => new FreshserviceHelpdesk({ url: 'https://acme.freshservice.com', apiKey: API_KEY })).not.toThrow();
  });

  it('never shows the API key or the Basic credentials in an error, nor in the adapter when it is logged', async () => {
    const freshservice = adapter();
    await freshservice.readTicket('402');
    showsNothing([API_KEY, WRONG_KEY, Buffer.from(`${API_KEY}:X`).toString('base64'), Buffer.from(`${WRONG_KEY}:X`).toString('base64')], fake.url, freshservice, 30);
  });
});

describe("Freshservice's API reference", () => {
  it('holds every request the adapter sent and every answer the fake gave in this file, which include each call and its answers', () => {
    expect(freshserviceContractProblems(fake.history)).toEqual([]);
    const answered = fake.history.flatMap((call) => (call.scripted || call.answer === 'hang' ? [] : [`${call.endpoint} ${call.answer.status}`]));
    expect([...new Set(answered)].sort()).toEqual(['reply 201', 'reply 401', 'reply 404', 'view 200', 'view 401', 'view 404']);
  });

  it("can fail: Freshdesk's bare answers, a reply that sets a status, is private or names a user, and another password than X, are problems", () => {
    const own = (endpoint: 'view' | 'reply', status: number) =>
      fake.history.find((call) => call.endpoint === endpoint && !call.scripted && call.answer !== 'hang' && call.answer.status === status)!;
    const [view, reply] = [own('view', 200), own('reply', 201)];
    // The record out of its key, as Freshdesk answers it.
    const unwrapped = (call: typeof view, key: string) => {
      const { status, body } = call.answer as { status: number; body: Record<string, unknown> };
      return { ...call, answer: { status, body: body[key] } };
    };
    expect(freshserviceContractProblems([view, reply])).toEqual([]);
    const broken = [
      unwrapped(view, 'ticket'),
      unwrapped(reply, 'conversation'),
      ...[{ status: 4 }, { private: false }, { user_id: 1 }].map((extra) => ({ ...reply, text: JSON.stringify({ body: 'x', ...extra }) })),
      { ...reply, headers: { ...reply.headers, authorization: `Basic ${Buffer.from(`${API_KEY}:secret`).toString('base64')}` } },
    ];
    for (const call of broken) expect(freshserviceContractProblems([call]), JSON.stringify(call.text)).not.toEqual([]);
  });
});
