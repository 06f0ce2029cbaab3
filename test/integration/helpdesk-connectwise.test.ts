import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONNECTWISE_CALLS, ConnectWiseHelpdesk } from '../../lambdas/adapters/helpdesks/connectwise.ts';
import { connectWiseContractProblems } from '../support/contract-connectwise.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeConnectWise, type FakeConnectWise } from '../support/fake-connectwise.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';
import { helpdeskSample, REPLY_TEXT } from '../support/helpdesk-samples.ts';

/**
 * The ConnectWise PSA adapter against a stateful fake site over real HTTP on loopback: closedFlag
 * decides, never the board's status names; references refused before any call; Basic auth as
 * company+public key with the private key, and the clientId header, on every call and never a second
 * attempt after a 401; the failure reasons; the reply's exact body (one Discussion note, nothing that
 * touches the status); that no key reaches an error; and that every request and every answer of the
 * fake fits what ConnectWise's API declares of the two operations.
 */

const LOGIN = { companyId: 'acme', publicKey: 'Pk7QbR2mZx9LwT4c', privateKey: 'Sk3vN8yHq1Jd6Fp0', clientId: '5b0e8c2a-91d4-4f6e-a7b3-2c9d1e4f8a60' };
const WRONG_PRIVATE_KEY = 'Sk0000000000000000';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeConnectWise;
const { failure, timesOut, showsNothing, refusedLogin } = helpdeskFailures();

const adapter = (overrides: { privateKey?: string; clientId?: string; timeoutMs?: number } = {}) =>
  new ConnectWiseHelpdesk(
    { url: fake.url, ...LOGIN, privateKey: overrides.privateKey ?? LOGIN.privateKey, clientId: overrides.clientId ?? LOGIN.clientId },
    { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true },
  );

/** Board statuses as boards name them: only the Closed mark (closedFlag) counts, whatever the name says. */
const TICKETS = [
  [3101, 'New', false, 'New', 'open'],
  [3102, 'In Progress', false, 'In Progress', 'open'],
  [3103, 'Resolved - Awaiting Confirmation', false, 'Resolved - Awaiting Confirmation', 'open'],
  [3104, '>Closed', true, '>Closed (closed)', 'closed'],
  [3105, 'Completed', true, 'Completed (closed)', 'closed'],
] as const;

const readPath = (id: number | string) => `/v4_6_release/apis/3.0/service/tickets/${id}?fields=id%2CclosedFlag%2Cstatus`;

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeConnectWise(LOGIN);
  for (const [id, statusName, closed] of TICKETS) fake.setTicket(id, statusName, closed);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('ConnectWiseHelpdesk.readTicket', () => {
  it.each(TICKETS)('reads ticket %s (status "%s", closedFlag %s) as "%s", %s', async (id, _name, _closed, vendorStatus, state) => {
    expect(await adapter().readTicket(String(id))).toEqual({ externalId: String(id), vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual([['GET', readPath(id)]]);
  });

  it('follows the ticket through its life, reopened included', async () => {
    const connectwise = adapter();
    for (const [name, closed, ref, state] of [['New', false, '3201', 'open'], ['>Closed', true, ' 3201\n', 'closed'], ['Re-Opened', false, '3201', 'open']] as const) {
      fake.setTicket(3201, name, closed);
      expect((await connectwise.readTicket(ref)).state, name).toBe(state);
    }
  });

  it('reads the vendor sample as it is, and a ticket whose answer leaves closedFlag out (or null) as open', async () => {
    const example = helpdeskSample('connectwise-get-ticket.response.excerpt.json');
    const { closedFlag: _, ...withoutFlag } = example;
    fake.answerNext('ticket', { status: 200, body: example }, { status: 200, body: withoutFlag }, { status: 200, body: { ...example, closedFlag: null } });
    expect(await adapter().readTicket(String(example.id))).toMatchObject({ externalId: '3186', vendorStatus: '>Closed (closed)', state: 'closed' });
    expect(await adapter().readTicket('3186')).toMatchObject({ vendorStatus: '>Closed', state: 'open' });
    expect(await adapter().readTicket('3186')).toMatchObject({ state: 'open' });
  });

  it('calls an answer about another ticket, a flag it cannot place, or one it cannot read an unexpected_answer', async () => {
    const example: Record<string, unknown> = { ...helpdeskSample('connectwise-get-ticket.response.excerpt.json'), id: 3101 };
    const odd = [
      { ...example, closedFlag: 'true' },
      { ...example, closedFlag: 1 },
      { ...example, id: 3102 },
      { ...example, id: '3101' },
      { ...example, id: undefined },
      [example],
      { ticket: example },
    ];
    fake.answerNext('ticket', ...odd.map((body) => ({ status: 200, body })), { status: 200, raw: '<html>ConnectWise is being upgraded</html>' }, { status: 204 });
    for (let i = 0; i < odd.length + 2; i++) {
      expect(await failure(adapter().readTicket('3101'))).toMatchObject({ reason: 'unexpected_answer', transient: false, call: CONNECTWISE_CALLS.getTicket });
    }
  });

  it('shows a status without a name as such', async () => {
    fake.answerNext('ticket', { status: 200, body: { id: 3101, closedFlag: false } }, { status: 200, body: { id: 3101, closedFlag: true, status: { id: 562, name: ' ' } } });
    expect(await adapter().readTicket('3101')).toMatchObject({ vendorStatus: 'no status', state: 'open' });
    expect(await adapter().readTicket('3101')).toMatchObject({ vendorStatus: 'no status (closed)', state: 'closed' });
  });

  it('answers not_found for an unknown ticket, and for a reference that cannot be a ticket id without calling', async () => {
    expect(await failure(adapter().readTicket('999999'))).toMatchObject({ reason: 'not_found', status: 404 });
    const refused = ['0', '03101', '-1', '1.5', '2e3', '0x10', '3101/notes', '3101?fields=id', '../3101', '#3101', 'T3101', '３１０１', '', '   ', '2147483648', '1'.repeat(11)];
    for (const ref of refused) {
      const error = await failure(adapter().readTicket(ref));
      expect(error, JSON.stringify(ref)).toMatchObject({ reason: 'not_found', call: CONNECTWISE_CALLS.getTicket });
      expect(error.status).toBeUndefined();
    }
    expect(fake.calls).toHaveLength(1);
    expect((await adapter().readTicket('2147483647').catch((error: unknown) => error)) as object).toMatchObject({ reason: 'not_found', status: 404 });
  });
});

describe('API keys and client id', () => {
  it('sends exactly Basic base64(company+public key:private key) and the clientId header on every call', async () => {
    const connectwise = adapter();
    await connectwise.readTicket('3101');
    await connectwise.replyPublicly('3101', 'Please use this link.');
    expect(fake.calls).toHaveLength(2);
    for (const call of fake.calls) {
      expect(call.headers.authorization).toBe(`Basic ${Buffer.from(`acme+${LOGIN.publicKey}:${LOGIN.privateKey}`).toString('base64')}`);
      expect(call.headers.clientid).toBe(LOGIN.clientId);
      expect(call.headers.accept).toBe('application/json');
    }
  });

  it('refused (a wrong private key, or another client id: 401) is unauthorized, with no second attempt and nothing posted', async () => {
    for (const connectwise of [adapter({ privateKey: WRONG_PRIVATE_KEY }), adapter({ clientId: '00000000-0000-4000-8000-000000000000' })]) {
      await refusedLogin(() => connectwise.readTicket('3102'), () => connectwise.replyPublicly('3102', 'x'), CONNECTWISE_CALLS.addNote);
    }
    expect(fake.calls).toHaveLength(4);
    expect(fake.notes(3102)).toEqual([]);
  });

  it("classifies 403 (a security role without the service board) as unauthorized", async () => {
    fake.answerNext('ticket', { status: 403, body: { code: 'Security', message: 'You do not have security permission to perform this action.' } });
    expect(await failure(adapter().readTicket('3101'))).toMatchObject({ reason: 'unauthorized', status: 403 });
  });
});

describe('failures', () => {
  it('classifies 429 as rate_limited with its Retry-After, 503 and 500 as unavailable, and does not retry', async () => {
    fake.answerNext('ticket', { status: 429, headers: { 'Retry-After': '30' }, body: { code: 'TooManyRequests', message: 'Too many requests' } });
    expect(await failure(adapter().readTicket('3101'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 30, transient: true });
    fake.answerNext('ticket', { status: 503, raw: 'Service Unavailable' });
    expect(await failure(adapter().readTicket('3101'))).toMatchObject({ reason: 'unavailable', status: 503 });
    fake.answerNext('notes', { status: 500, body: { code: 'UnexpectedError', message: 'An unexpected error occurred' } });
    expect(await failure(adapter().replyPublicly('3101', 'x'))).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(fake.calls).toHaveLength(3);
  });

  it('ends a hanging read and a hanging reply in timeout within the configured timeout', async () => {
    const connectwise = adapter({ timeoutMs: TIMEOUT_MS });
    await timesOut(TIMEOUT_MS, [
      [() => fake.answerNext('ticket', 'hang'), () => connectwise.readTicket('3101')],
      [() => fake.answerNext('notes', 'hang'), () => connectwise.replyPublicly('3101', 'x')],
    ]);
  });

  it('calls a redirect (a site moved to another address) or another 4xx an unexpected_answer, never following it', async () => {
    fake.answerNext('ticket', { status: 302, headers: { Location: 'https://eu.myconnectwise.net/v4_6_release/apis/3.0/service/tickets/3101' } }, { status: 400, body: { code: 'InvalidObject', message: 'x' } });
    expect(await failure(adapter().readTicket('3101'))).toMatchObject({ reason: 'unexpected_answer', status: 302 });
    expect(await failure(adapter().readTicket('3101'))).toMatchObject({ reason: 'unexpected_answer', status: 400 });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('ConnectWiseHelpdesk.replyPublicly', () => {
  it('posts exactly one Discussion note with the text as given, and answers its id; the status stays', async () => {
    const text = REPLY_TEXT;
    fake.setTicket(3301, 'Waiting on Client', false);
    const reply = await adapter().replyPublicly('3301', text);
    const [call, ...more] = fake.calls;
    expect(more).toEqual([]);
    expect(call).toMatchObject({ endpoint: 'notes', method: 'POST', path: '/v4_6_release/apis/3.0/service/tickets/3301/notes' });
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.text).toBe(JSON.stringify({ text, detailDescriptionFlag: true, internalAnalysisFlag: false, resolutionFlag: false }));
    const posted = fake.notes(3301);
    expect(posted).toEqual([{ id: expect.any(Number), text, detailDescriptionFlag: true, internalAnalysisFlag: false, resolutionFlag: false, other: {} }]);
    expect(reply).toEqual({ commentId: String(posted[0]!.id) });
    expect(fake.statusOf(3301)).toEqual({ statusName: 'Waiting on Client', closed: false });
  });

  it('sends the vendor sample request for the sample text', async () => {
    const example = helpdeskSample('connectwise-add-ticket-note.request.json');
    await adapter().replyPublicly('3102', example.text);
    expect(JSON.parse(fake.calls[0]!.text)).toEqual(example);
  });

  it('posts in a closed ticket too, and leaves it closed', async () => {
    expect(await adapter().replyPublicly('3104', 'after closing')).toEqual({ commentId: expect.any(String) });
    expect(fake.statusOf(3104)).toEqual({ statusName: '>Closed', closed: true });
  });

  it("tolerates an answer without an id; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    fake.answerNext('notes', { status: 201, body: { text: 'x' } }, { status: 201, raw: 'Created' }, { status: 200 });
    expect(await adapter().replyPublicly('3101', 'a')).toEqual({});
    for (const text of ['b', 'c']) expect(await failure(adapter().replyPublicly('3101', text))).toMatchObject({ reason: 'unexpected_answer', call: CONNECTWISE_CALLS.addNote });
    expect(fake.callsTo('notes')).toHaveLength(3);
  });

  it('answers not_found for an unknown ticket, and refuses a reference that cannot be one, posting nothing', async () => {
    expect(await failure(adapter().replyPublicly('999999', 'x'))).toMatchObject({ reason: 'not_found', status: 404, call: CONNECTWISE_CALLS.addNote });
    for (const ref of ['3101/../3102', '3101/notes', '-1', '', '2147483648']) expect(await failure(adapter().replyPublicly(ref, 'x'))).toMatchObject({ reason: 'not_found', call: CONNECTWISE_CALLS.addNote });
    expect(fake.calls).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('takes the site address only, and adds the API path itself', () => {
    const make = (url: string) => () => new ConnectWiseHelpdesk({ url, ...LOGIN });
    const refused = [
      'http://api-na.myconnectwise.net',
      'https://api-na.myconnectwise.net/v4_6_release/apis/3.0',
      'https://acme+key:secret@api-na.myconnectwise.net',
      'https://api-na.myconnectwise.net?company=acme',
      fake.url,
    ];
    for (const url of refused) expect(make(url), url).toThrow(/^The ConnectWise PSA URL/);
    expect(make('https://api-na.myconnectwise.net')).not.toThrow();
    expect(make('https://api-na.myconnectwise.net/')).not.toThrow();
  });
});

describe('secrets', () => {
  it('never shows a key, the client id or the Basic credentials in an error, nor in the adapter when it is logged', async () => {
    const connectwise = adapter();
    await connectwise.readTicket('3101');
    const basic = (privateKey: string) => Buffer.from(`acme+${LOGIN.publicKey}:${privateKey}`).toString('base64');
    showsNothing([LOGIN.publicKey, LOGIN.privateKey, WRONG_PRIVATE_KEY, LOGIN.clientId, basic(LOGIN.privateKey), basic(WRONG_PRIVATE_KEY)], fake.url, connectwise);
  });
});

describe("ConnectWise's API", () => {
  it('holds every request the adapter sent and every answer the fake gave in this file', () => {
    // Requests made with another client id on purpose fail that one check, and only it.
    const otherClient = (call: (typeof fake.history)[number]) => call.headers.clientid !== LOGIN.clientId;
    expect(connectWiseContractProblems(fake.history.filter((call) => !otherClient(call)), { clientId: LOGIN.clientId })).toEqual([]);
    for (const call of fake.history.filter(otherClient)) expect(connectWiseContractProblems([call], { clientId: LOGIN.clientId })).toEqual([expect.stringMatching(/clientId header/)]);
    const own = fake.history.filter((call) => !call.scripted && call.answer !== 'hang');
    expect(new Set(own.map((call) => call.endpoint))).toEqual(new Set(['ticket', 'notes']));
    expect(new Set(own.map((call) => (call.answer as { status: number }).status))).toEqual(new Set([200, 201, 401, 404]));
  });

  it('can fail: a note that is internal, a resolution, sets another field or lacks the flags, and a read of every field, are problems', () => {
    const note = fake.history.find((call) => call.endpoint === 'notes' && !call.scripted)!;
    const read = fake.history.find((call) => call.endpoint === 'ticket' && !call.scripted)!;
    const check = (call: typeof note) => connectWiseContractProblems([call], { clientId: LOGIN.clientId });
    const base = { text: 'x', detailDescriptionFlag: true, internalAnalysisFlag: false, resolutionFlag: false };
    for (const body of [{ ...base, internalAnalysisFlag: true }, { ...base, resolutionFlag: true }, { ...base, processNotifications: true }, { text: 'x' }, { ...base, status: { id: 5 } }]) {
      expect(check({ ...note, text: JSON.stringify(body) }), JSON.stringify(body)).not.toEqual([]);
    }
    expect(check({ ...read, path: read.path.replace(/\?.*$/, '') })).not.toEqual([]);
    expect(check({ ...read, headers: { ...read.headers, clientid: '' } })).not.toEqual([]);
  });
});
