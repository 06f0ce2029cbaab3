import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FRESHDESK_CALLS, FreshdeskHelpdesk } from '../../lambdas/adapters/helpdesks/freshdesk.ts';
import { plainTextAsHtml } from '../../lambdas/adapters/helpdesks/plain-text-html.ts';
import { freshdeskContractProblems } from '../support/contract-freshdesk.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeFreshdesk, type FakeFreshdesk } from '../support/fake-freshdesk.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';
import { helpdeskSample } from '../support/helpdesk-samples.ts';

/**
 * The Freshdesk adapter against a stateful fake account over real HTTP on loopback: the status
 * mapping (custom statuses included), the trash, references refused before any call, Basic auth
 * with the API key and `X` on every call and never a second attempt after a 401, the failure
 * reasons, the reply's exact body (its HTML alone, the text escaped and its link kept whole), that
 * no secret reaches an error, and that every request and every answer of the fake fits Freshdesk's
 * API reference.
 */

const API_KEY = 'Fd7kQ2xLm9Zp4Rt8Vw3Y';
const WRONG_KEY = 'Fd0000000000000000000';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeFreshdesk;
const { failure, showsNothing } = helpdeskFailures();

const adapter = (overrides: { apiKey?: string; timeoutMs?: number } = {}) =>
  new FreshdeskHelpdesk({ url: fake.url, apiKey: overrides.apiKey ?? API_KEY }, { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true });

/** A ticket in each default status, and two in custom ones (Waiting on Customer, Waiting on Third Party). */
const TICKETS = [
  [1002, 2, 'Open (status 2)', 'open'],
  [1003, 3, 'Pending (status 3)', 'open'],
  [1004, 4, 'Resolved (status 4)', 'resolved'],
  [1005, 5, 'Closed (status 5)', 'closed'],
  [1006, 6, 'Custom (status 6)', 'open'],
  [1007, 7, 'Custom (status 7)', 'open'],
] as const;

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeFreshdesk({ apiKey: API_KEY });
  for (const [id, status] of TICKETS) fake.setTicket(id, status);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('FreshdeskHelpdesk.readTicket', () => {
  it.each(TICKETS)('reads ticket %s (status %s) as "%s", %s', async (id, _status, vendorStatus, state) => {
    expect(await adapter().readTicket(String(id))).toEqual({ externalId: String(id), vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual([['GET', `/api/v2/tickets/${id}`]]);
  });

  it('follows the ticket through its life, reopened by a requester reply included', async () => {
    const freshdesk = adapter();
    fake.setTicket(2001, 2);
    expect((await freshdesk.readTicket('2001')).state).toBe('open');
    fake.setTicket(2001, 4);
    expect((await freshdesk.readTicket('2001')).state).toBe('resolved');
    fake.setTicket(2001, 2);
    expect((await freshdesk.readTicket(' 2001\n')).state).toBe('open');
    fake.setTicket(2001, 5);
    expect((await freshdesk.readTicket('2001')).state).toBe('closed');
  });

  it('reads the vendor example as it is', async () => {
    const example = helpdeskSample('freshdesk-view-ticket.response.partial.json');
    fake.answerNext('view', { status: 200, body: example });
    expect(await adapter().readTicket(String(example.id))).toMatchObject({ externalId: '20', vendorStatus: 'Open (status 2)', state: 'open' });
  });

  it('answers not_found for a ticket in the trash, whatever its status', async () => {
    fake.setTicket(2002, 5, true);
    expect(await failure(adapter().readTicket('2002'))).toMatchObject({ reason: 'not_found', status: 200, call: FRESHDESK_CALLS.viewTicket });
  });

  it('calls a value that is no status, an answer about another ticket, or one it cannot read an unexpected_answer', async () => {
    const example: Record<string, unknown> = { ...helpdeskSample('freshdesk-view-ticket.response.partial.json'), id: 1002 };
    const { status: _, ...withoutStatus } = example;
    const odd = [
      withoutStatus,
      { ...example, status: null },
      { ...example, status: 0 },
      { ...example, status: 1 },
      { ...example, status: -4 },
      { ...example, status: 4.5 },
      { ...example, status: '4' },
      { ...example, status: 'Resolved' },
      { ...example, id: 1003, status: 5 },
      { ...example, id: undefined },
      { ticket: example },
      [example],
    ];
    fake.answerNext('view', ...odd.map((body) => ({ status: 200, body })), { status: 200, raw: '<html>Freshdesk is under maintenance</html>' }, { status: 204 });
    for (let i = 0; i < odd.length + 2; i++) {
      expect(await failure(adapter().readTicket('1002'))).toMatchObject({ reason: 'unexpected_answer', transient: false, call: FRESHDESK_CALLS.viewTicket });
    }
  });

  it('answers not_found for an unknown ticket, and for a reference that cannot be a ticket id without calling', async () => {
    expect(await failure(adapter().readTicket('999999'))).toMatchObject({ reason: 'not_found', status: 404 });
    const refused = ['0', '01', '-1', '1.5', '2e3', '0x10', '1002/reply', '1002?include=conversations', '../1002', '#1002', 'INC1002', '１００２', '', '   ', '1'.repeat(20)];
    for (const ref of refused) {
      const error = await failure(adapter().readTicket(ref));
      expect(error, JSON.stringify(ref)).toMatchObject({ reason: 'not_found', call: FRESHDESK_CALLS.viewTicket });
      expect(error.status).toBeUndefined();
    }
    expect(fake.calls).toHaveLength(1);
  });
});

describe('Basic auth with the API key', () => {
  it('sends exactly Basic base64(<API key>:X) on every call', async () => {
    const freshdesk = adapter();
    await freshdesk.readTicket('1002');
    await freshdesk.replyPublicly('1002', 'Please use this link.');
    expect(fake.calls).toHaveLength(2);
    for (const call of fake.calls) {
      expect(call.headers.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:X`).toString('base64')}`);
      expect(call.headers.accept).toBe('application/json');
    }
  });

  it('refused (a wrong or reset API key: 401) is unauthorized, with no second attempt and nothing posted', async () => {
    const freshdesk = adapter({ apiKey: WRONG_KEY });
    expect(await failure(freshdesk.readTicket('1003'))).toMatchObject({ reason: 'unauthorized', status: 401, transient: false });
    expect(await failure(freshdesk.replyPublicly('1003', 'x'))).toMatchObject({ reason: 'unauthorized', status: 401, call: FRESHDESK_CALLS.replyTicket });
    expect(fake.calls).toHaveLength(2);
    expect(fake.conversations(1003)).toEqual([]);
  });

  it('classifies 403 (an agent without access to the ticket) as unauthorized', async () => {
    fake.answerNext('view', { status: 403, body: { code: 'access_denied', message: 'You are not authorized to perform this action.' } });
    expect(await failure(adapter().readTicket('1002'))).toMatchObject({ reason: 'unauthorized', status: 403 });
  });
});

describe('failures', () => {
  it('classifies 429 as rate_limited with its Retry-After, 503 and 500 as unavailable, and does not retry', async () => {
    fake.answerNext('view', { status: 429, headers: { 'Retry-After': '52', 'X-RateLimit-Total': '200', 'X-RateLimit-Remaining': '0' }, body: { message: 'You have exceeded the limit of requests per minute' } });
    expect(await failure(adapter().readTicket('1002'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 52, transient: true });
    fake.answerNext('view', { status: 503, raw: 'Service Unavailable' });
    expect(await failure(adapter().readTicket('1002'))).toMatchObject({ reason: 'unavailable', status: 503 });
    fake.answerNext('reply', { status: 500, body: { message: 'Internal error' } });
    expect(await failure(adapter().replyPublicly('1002', 'x'))).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(fake.calls).toHaveLength(3);
  });

  it('ends a hanging read and a hanging reply in timeout within the configured timeout', async () => {
    const freshdesk = adapter({ timeoutMs: TIMEOUT_MS });
    for (const [endpoint, call] of [
      ['view', () => freshdesk.readTicket('1002')],
      ['reply', () => freshdesk.replyPublicly('1002', 'x')],
    ] as const) {
      fake.answerNext(endpoint, 'hang');
      const started = performance.now();
      expect(await failure(call())).toMatchObject({ reason: 'timeout', transient: true });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
    }
  });

  it('calls a redirect (a renamed helpdesk address) or another 4xx an unexpected_answer, never following it', async () => {
    fake.answerNext('view', { status: 301, headers: { Location: 'https://newname.freshdesk.com/api/v2/tickets/1002' } }, { status: 400, body: { description: 'Validation failed', errors: [] } });
    expect(await failure(adapter().readTicket('1002'))).toMatchObject({ reason: 'unexpected_answer', status: 301 });
    expect(await failure(adapter().readTicket('1002'))).toMatchObject({ reason: 'unexpected_answer', status: 400 });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('FreshdeskHelpdesk.replyPublicly', () => {
  it('posts exactly one reply whose body is the text as HTML, and answers its id; the status stays', async () => {
    const link = 'https://handoff.example/r/01HREQ#k=abc&v=1';
    const text = `Jane Smith asks you to hand over a credential securely, through a one-time link.\n\nOpen this link to send it: ${link}\nNever paste the credential into this ticket.`;
    fake.setTicket(3001, 3);
    const reply = await adapter().replyPublicly('3001', text);
    const [call, ...more] = fake.calls;
    expect(more).toEqual([]);
    expect(call).toMatchObject({ endpoint: 'reply', method: 'POST', path: '/api/v2/tickets/3001/reply' });
    expect(call!.headers['content-type']).toBe('application/json');
    const html =
      'Jane Smith asks you to hand over a credential securely, through a one-time link.<br><br>' +
      'Open this link to send it: <a href="https://handoff.example/r/01HREQ#k=abc&#38;v=1">https://handoff.example/r/01HREQ#k=abc&#38;v=1</a><br>' +
      'Never paste the credential into this ticket.';
    expect(call!.text).toBe(JSON.stringify({ body: html }));
    const posted = fake.conversations(3001);
    expect(posted).toEqual([{ id: expect.any(Number), body: html, private: false }]);
    expect(reply).toEqual({ commentId: String(posted[0]!.id) });
    expect(fake.statusOf(3001)).toBe(3);
  });

  it('sends the vendor example request for the vendor example text', async () => {
    const example = helpdeskSample('freshdesk-reply-ticket.request.json');
    await adapter().replyPublicly('1004', example.body);
    expect(JSON.parse(fake.calls[0]!.text)).toEqual(example);
    // Not a note: the public note's flag is no field of a reply.
    expect(Object.keys(helpdeskSample('freshdesk-add-note.request.json'))).toContain('private');
    expect(fake.calls[0]!.text).not.toContain('private');
  });

  it('escapes what HTML would read as markup, and makes only https links links', () => {
    expect(plainTextAsHtml(`<script>alert("x")</script> & 'y'`)).toBe('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;');
    expect(plainTextAsHtml('see https://a.example/r/x#f"><img> and http://b.example')).toBe(
      'see <a href="https://a.example/r/x#f">https://a.example/r/x#f</a>&#34;&#62;&#60;img&#62; and http://b.example',
    );
    expect(plainTextAsHtml('one\r\ntwo\nthree')).toBe('one<br>two<br>three');
  });

  it('posts in a closed ticket too, and leaves its status alone', async () => {
    expect(await adapter().replyPublicly('1005', 'after closing')).toEqual({ commentId: expect.any(String) });
    expect(fake.statusOf(1005)).toBe(5);
  });

  it("tolerates an answer without an id; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    fake.answerNext('reply', { status: 201, body: { body: 'x' } }, { status: 201, raw: 'Created' }, { status: 201 });
    expect(await adapter().replyPublicly('1002', 'a')).toEqual({});
    for (const text of ['b', 'c']) expect(await failure(adapter().replyPublicly('1002', text))).toMatchObject({ reason: 'unexpected_answer', call: FRESHDESK_CALLS.replyTicket });
    expect(fake.callsTo('reply')).toHaveLength(3);
  });

  it('answers not_found for an unknown ticket, and refuses a reference that cannot be one, posting nothing', async () => {
    expect(await failure(adapter().replyPublicly('999999', 'x'))).toMatchObject({ reason: 'not_found', status: 404, call: FRESHDESK_CALLS.replyTicket });
    for (const ref of ['1002/../1003', '1002/notes', '-1', '']) expect(await failure(adapter().replyPublicly(ref, 'x'))).toMatchObject({ reason: 'not_found', call: FRESHDESK_CALLS.replyTicket });
    expect(fake.calls).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('refuses an account address that is not https, or is more than the account', () => {
    const make = (url: string) => () => new FreshdeskHelpdesk({ url, apiKey: API_KEY });
    for (const url of ['http://acme.freshdesk.com', 'https://acme.freshdesk.com/a/tickets/20', 'https://key:X@acme.freshdesk.com', 'https://acme.freshdesk.com?x=1', fake.url]) {
      expect(make(url), url).toThrow(/^The Freshdesk URL/);
    }
    expect(make('https://acme.freshdesk.com')).not.toThrow();
  });
});

describe('secrets', () => {
  it('never shows the API key or the Basic credentials in an error, nor in the adapter when it is logged', async () => {
    const freshdesk = adapter();
    await freshdesk.readTicket('1002');
    const secrets = [API_KEY, WRONG_KEY, Buffer.from(`${API_KEY}:X`).toString('base64'), Buffer.from(`${WRONG_KEY}:X`).toString('base64')];
    showsNothing(secrets, fake.url, freshdesk, 30);
  });
});

describe("Freshdesk's API reference", () => {
  it('holds every request the adapter sent and every answer the fake gave in this file', () => {
    expect(freshdeskContractProblems(fake.history)).toEqual([]);
    const own = fake.history.filter((call) => !call.scripted && call.answer !== 'hang');
    expect(new Set(own.map((call) => call.endpoint))).toEqual(new Set(['view', 'reply']));
    expect(new Set(own.map((call) => (call.answer as { status: number }).status))).toEqual(new Set([200, 201, 401, 404]));
  });

  it('can fail: a reply that sets a status or is private, and another password than X, are problems', () => {
    const reply = fake.history.find((call) => call.endpoint === 'reply' && !call.scripted)!;
    expect(freshdeskContractProblems([{ ...reply, text: JSON.stringify({ body: 'x', status: 4 }) }])).not.toEqual([]);
    expect(freshdeskContractProblems([{ ...reply, text: JSON.stringify({ body: 'x', private: false }) }])).not.toEqual([]);
    expect(freshdeskContractProblems([{ ...reply, headers: { ...reply.headers, authorization: `Basic ${Buffer.from(`${API_KEY}:secret`).toString('base64')}` } }])).not.toEqual([]);
  });
});
