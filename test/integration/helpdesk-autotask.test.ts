import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUTOTASK_CALLS, AUTOTASK_NOTE_TITLE, AutotaskHelpdesk } from '../../lambdas/adapters/helpdesks/autotask.ts';
import { autotaskContractProblems } from '../support/contract-autotask.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { DEFAULT_NOTE_TYPE, DEFAULT_PUBLISH, startFakeAutotask, type FakeAutotask } from '../support/fake-autotask.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';
import { helpdeskSample, REPLY_TEXT } from '../support/helpdesk-samples.ts';

/**
 * The Autotask adapter against a stateful fake zone over real HTTP on loopback: status picklist ids
 * read as closed only when listed (5, Complete, by default), references refused before any call, the
 * API user's three headers on every call and never a second attempt after a 401, the failure reasons,
 * the reply's exact body (one note, published with the value the instance's own picklist gives All
 * Autotask Users, and nothing that touches the status; no note at all when that value cannot be
 * found), that no secret reaches an error, and that every request and every answer of the fake fits
 * what Autotask's REST API describes.
 */

const LOGIN = { integrationCode: 'HANDOFFINTEGRATIONCODE00001', username: 'handoff.api@acme.example', secret: 'At$ecret-7Kq2Wm9Zr4' };
const WRONG_SECRET = 'At$ecret-0000000000';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeAutotask;
const { failure, timesOut, showsNothing, refusedLogin } = helpdeskFailures();

const adapter = (overrides: { secret?: string; closedStatusIds?: number[]; timeoutMs?: number } = {}) =>
  new AutotaskHelpdesk(
    { url: fake.url, ...LOGIN, secret: overrides.secret ?? LOGIN.secret, closedStatusIds: overrides.closedStatusIds },
    { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true },
  );

/** Tickets in common default statuses (1 New, 5 Complete, 7 Waiting Customer, 8 In Progress) and one an instance added. */
const TICKETS = [
  [99101, 1, 'status 1', 'open'],
  [99105, 5, 'status 5 (closed)', 'closed'],
  [99107, 7, 'status 7', 'open'],
  [99108, 8, 'status 8', 'open'],
  [99129, 29, 'status 29', 'open'],
] as const;

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeAutotask(LOGIN);
  for (const [id, status] of TICKETS) fake.setTicket(id, status);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
  fake.setPicklists({ publish: DEFAULT_PUBLISH, noteType: DEFAULT_NOTE_TYPE });
});

describe('AutotaskHelpdesk.readTicket', () => {
  it.each(TICKETS)('reads ticket %s (status %s) as "%s", %s', async (id, _status, vendorStatus, state) => {
    expect(await adapter().readTicket(String(id))).toEqual({ externalId: String(id), vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual([['GET', `/atservicesrest/v1.0/Tickets/${id}`]]);
  });

  it('reads the statuses an instance lists as closed instead of 5, and every other one as open', async () => {
    const listed = adapter({ closedStatusIds: [29, 14] });
    expect(await listed.readTicket('99129')).toMatchObject({ vendorStatus: 'status 29 (closed)', state: 'closed' });
    expect(await listed.readTicket('99105')).toMatchObject({ vendorStatus: 'status 5', state: 'open' });
    expect(await adapter({ closedStatusIds: [] }).readTicket('99105')).toMatchObject({ state: 'closed' });
    expect(() => adapter({ closedStatusIds: [0] })).toThrow(/positive integers/);
  });

  it('follows the ticket through its life, reopened included', async () => {
    const autotask = adapter();
    for (const [status, ref, state] of [[1, '99201', 'open'], [5, ' 99201\n', 'closed'], [8, '99201', 'open']] as const) {
      fake.setTicket(99201, status);
      expect((await autotask.readTicket(ref)).state, `status ${status}`).toBe(state);
    }
  });

  it('answers not_found for an empty item (no such ticket, or one the API user cannot see), and for a 404', async () => {
    expect(await failure(adapter().readTicket('99999'))).toMatchObject({ reason: 'not_found', status: 200, call: AUTOTASK_CALLS.getTicket });
    fake.answerNext('ticket', { status: 404, body: { errors: ['Not found'] } });
    expect(await failure(adapter().readTicket('99101'))).toMatchObject({ reason: 'not_found', status: 404 });
  });

  it('calls a status that is no picklist id, an answer about another ticket, or one it cannot read an unexpected_answer', async () => {
    const item = { id: 99101, status: 5, title: 'VPN access' };
    const odd = [{ item: { ...item, status: null } }, { item: { ...item, status: '5' } }, { item: { ...item, status: 0 } }, { item: { ...item, status: 5.5 } }, { item: { ...item, id: 99102 } }, { item: { ...item, id: '99101' } }, item, { items: [item] }, [item]];
    fake.answerNext('ticket', ...odd.map((body) => ({ status: 200, body })), { status: 200, raw: '<html>Autotask maintenance</html>' }, { status: 204 });
    for (let i = 0; i < odd.length + 2; i++) {
      expect(await failure(adapter().readTicket('99101'))).toMatchObject({ reason: 'unexpected_answer', transient: false, call: AUTOTASK_CALLS.getTicket });
    }
  });

  it('refuses a reference that cannot be a ticket id (a ticket number among them) without calling', async () => {
    const refused = ['0', '099101', '-1', '1.5', '2e3', 'T20261126.0001', '99101/Notes', '99101?x=1', '../99101', '９９１０１', '', '   ', '9007199254740993', '1'.repeat(20)];
    for (const ref of refused) {
      const error = await failure(adapter().readTicket(ref));
      expect(error, JSON.stringify(ref)).toMatchObject({ reason: 'not_found', call: AUTOTASK_CALLS.getTicket });
      expect(error.status).toBeUndefined();
    }
    expect(fake.calls).toEqual([]);
  });
});

describe("the API user's headers", () => {
  it('sends exactly ApiIntegrationCode, UserName and Secret, and no Authorization, on every call', async () => {
    const autotask = adapter();
    await autotask.readTicket('99101');
    await autotask.replyPublicly('99101', 'Please use this link.');
    expect(fake.calls.map((call) => call.endpoint)).toEqual(['ticket', 'fields', 'notes']);
    for (const call of fake.calls) {
      expect([call.headers.apiintegrationcode, call.headers.username, call.headers.secret]).toEqual([LOGIN.integrationCode, LOGIN.username, LOGIN.secret]);
      expect(call.headers.authorization).toBeUndefined();
      expect(call.headers.accept).toBe('application/json');
    }
  });

  it('refused (a wrong secret: 401) is unauthorized, with no second attempt and nothing posted', async () => {
    const autotask = adapter({ secret: WRONG_SECRET });
    // The reply is refused at its first call, the read of the note picklists.
    await refusedLogin(() => autotask.readTicket('99107'), () => autotask.replyPublicly('99107', 'x'), AUTOTASK_CALLS.noteFields);
    expect(fake.calls).toHaveLength(2);
    expect(fake.notes(99107)).toEqual([]);
  });

  it('classifies 403 (a security level without ticket notes) as unauthorized', async () => {
    fake.answerNext('notes', { status: 403, body: { errors: ['User does not have permission to create TicketNotes.'] } });
    expect(await failure(adapter().replyPublicly('99101', 'x'))).toMatchObject({ reason: 'unauthorized', status: 403, call: AUTOTASK_CALLS.createNote });
  });
});

describe('failures', () => {
  it('classifies 429 (the thread or hourly limit) as rate_limited with its Retry-After, 503 and 500 as unavailable, and does not retry', async () => {
    fake.answerNext('ticket', { status: 429, headers: { 'Retry-After': '60' }, body: { errors: ['Thread threshold exceeded.'] } });
    expect(await failure(adapter().readTicket('99101'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 60, transient: true });
    fake.answerNext('ticket', { status: 503, raw: 'Service Unavailable' });
    expect(await failure(adapter().readTicket('99101'))).toMatchObject({ reason: 'unavailable', status: 503 });
    fake.answerNext('notes', { status: 500, body: { errors: ['An unexpected error occurred.'] } });
    expect(await failure(adapter().replyPublicly('99101', 'x'))).toMatchObject({ reason: 'unavailable', status: 500 });
    fake.answerNext('fields', { status: 429, body: { errors: ['Thread threshold exceeded.'] } });
    expect(await failure(adapter().replyPublicly('99101', 'x'))).toMatchObject({ reason: 'rate_limited', call: AUTOTASK_CALLS.noteFields });
    expect(fake.calls.map((call) => call.endpoint)).toEqual(['ticket', 'ticket', 'fields', 'notes', 'fields']);
  });

  it('ends a hanging read, a hanging field read and a hanging reply in timeout within the configured timeout', async () => {
    const autotask = adapter({ timeoutMs: TIMEOUT_MS });
    await timesOut(TIMEOUT_MS, [
      [() => fake.answerNext('ticket', 'hang'), () => autotask.readTicket('99101')],
      [() => fake.answerNext('fields', 'hang'), () => autotask.replyPublicly('99101', 'x')],
      [() => fake.answerNext('notes', 'hang'), () => autotask.replyPublicly('99101', 'x')],
    ]);
  });

  it('calls a redirect (another zone) or another 4xx an unexpected_answer, never following it', async () => {
    fake.answerNext('ticket', { status: 301, headers: { Location: 'https://webservices2.autotask.net/atservicesrest/v1.0/Tickets/99101' } }, { status: 400, body: { errors: ['x'] } });
    expect(await failure(adapter().readTicket('99101'))).toMatchObject({ reason: 'unexpected_answer', status: 301 });
    expect(await failure(adapter().readTicket('99101'))).toMatchObject({ reason: 'unexpected_answer', status: 400 });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('AutotaskHelpdesk.replyPublicly', () => {
  it('posts exactly one note published to All Autotask Users, with the text as given, and answers its id; the status stays', async () => {
    const text = REPLY_TEXT;
    fake.setTicket(99301, 7);
    const reply = await adapter().replyPublicly('99301', text);
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual([
      ['GET', '/atservicesrest/v1.0/TicketNotes/entityInformation/fields'],
      ['POST', '/atservicesrest/v1.0/Tickets/99301/Notes'],
    ]);
    const post = fake.calls[1]!;
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.text).toBe(JSON.stringify({ ticketID: 99301, title: AUTOTASK_NOTE_TITLE, description: text, noteType: 1, publish: 1 }));
    const posted = fake.notes(99301);
    expect(posted).toEqual([{ id: expect.any(Number), title: AUTOTASK_NOTE_TITLE, description: text, noteType: 1, publish: 1, other: {} }]);
    expect(reply).toEqual({ commentId: String(posted[0]!.id) });
    expect(fake.statusOf(99301)).toBe(7);
  });

  it('sends the fields of the vendor sample request, with the values the instance gives', async () => {
    const example = helpdeskSample('autotask-create-ticket-note.request.json');
    await adapter().replyPublicly('99101', example.description);
    const sent = JSON.parse(fake.calls[1]!.text);
    expect(Object.keys(sent).filter((key) => key !== 'ticketID').sort()).toEqual(Object.keys(example).sort());
    expect(sent).toMatchObject({ description: example.description });
  });

  it("takes each instance's own values: All Autotask Users by its label, the note type marked default", async () => {
    fake.setPicklists({
      publish: [
        { value: '2', label: 'Internal Only' },
        { value: '7', label: ' ALL AUTOTASK USERS ' },
        { value: '9', label: 'All Autotask Users', isActive: false },
      ],
      noteType: [
        { value: '1', label: 'Task Summary' },
        { value: '21', label: 'Customer Update', isDefaultValue: true },
      ],
    });
    await adapter().replyPublicly('99101', 'x');
    expect(fake.notes(99101).at(-1)).toMatchObject({ publish: 7, noteType: 21 });
    fake.setPicklists({ noteType: [{ value: '3', label: 'Task Notes' }, { value: '1', label: 'Task Summary' }] });
    await adapter().replyPublicly('99101', 'y');
    expect(fake.notes(99101).at(-1)).toMatchObject({ publish: 7, noteType: 1 });
  });

  it('posts nothing when the instance has no single active All Autotask Users value, or no note type it can take', async () => {
    const refusals = [
      { publish: [{ value: '2', label: 'Internal Only' }] },
      { publish: [{ value: '1', label: 'All Autotask Users', isActive: false }] },
      { publish: [{ value: '1', label: 'All Autotask Users' }, { value: '3', label: 'all autotask users' }] },
      { publish: [{ value: 'ALL', label: 'All Autotask Users' }] },
      { noteType: [{ value: '3', label: 'Task Notes' }] },
      { noteType: [{ value: '1', label: 'Task Summary', isActive: false }] },
    ];
    fake.setTicket(99401, 1);
    for (const picklists of refusals) {
      fake.setPicklists({ publish: DEFAULT_PUBLISH, noteType: DEFAULT_NOTE_TYPE, ...picklists });
      expect(await failure(adapter().replyPublicly('99401', 'x')), JSON.stringify(picklists)).toMatchObject({ reason: 'unexpected_answer', call: AUTOTASK_CALLS.noteFields });
    }
    fake.answerNext('fields', { status: 200, body: { fields: null } }, { status: 200, body: [] }, { status: 200, raw: 'not json' });
    for (let i = 0; i < 3; i++) expect(await failure(adapter().replyPublicly('99401', 'x'))).toMatchObject({ reason: 'unexpected_answer' });
    expect(fake.callsTo('notes')).toEqual([]);
    expect(fake.notes(99401)).toEqual([]);
  });

  it('posts in a completed ticket too, and leaves it complete', async () => {
    expect(await adapter().replyPublicly('99105', 'after completing')).toEqual({ commentId: expect.any(String) });
    expect(fake.statusOf(99105)).toBe(5);
  });

  it("tolerates an answer without an item id; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    fake.answerNext('notes', { status: 200, body: {} }, { status: 201, raw: 'Created' }, { status: 200 });
    expect(await adapter().replyPublicly('99101', 'a')).toEqual({});
    for (const text of ['b', 'c']) expect(await failure(adapter().replyPublicly('99101', text))).toMatchObject({ reason: 'unexpected_answer', call: AUTOTASK_CALLS.createNote });
    expect(fake.callsTo('notes')).toHaveLength(3);
  });

  it('answers not_found for an unknown ticket, and refuses a reference that cannot be one before any call', async () => {
    expect(await failure(adapter().replyPublicly('99999', 'x'))).toMatchObject({ reason: 'not_found', status: 404, call: AUTOTASK_CALLS.createNote });
    expect(fake.calls).toHaveLength(2);
    for (const ref of ['99101/../99102', '99101/Notes', '-1', '', 'T20261126.0001']) expect(await failure(adapter().replyPublicly(ref, 'x'))).toMatchObject({ reason: 'not_found', call: AUTOTASK_CALLS.createNote });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('configuration', () => {
  it("takes the zone's address only, and adds the API path itself", () => {
    const make = (url: string) => () => new AutotaskHelpdesk({ url, ...LOGIN });
    const refused = ['http://webservices5.autotask.net', 'https://webservices5.autotask.net/atservicesrest/v1.0', 'https://user:secret@webservices5.autotask.net', 'https://webservices5.autotask.net?zone=5', fake.url];
    for (const url of refused) expect(make(url), url).toThrow(/^The Autotask URL/);
    expect(make('https://webservices5.autotask.net')).not.toThrow();
  });
});

describe('secrets', () => {
  it('never shows the secret, the user or the integration code in an error, nor in the adapter when it is logged', async () => {
    const autotask = adapter();
    await autotask.readTicket('99101');
    showsNothing([LOGIN.secret, WRONG_SECRET, LOGIN.integrationCode, LOGIN.username], fake.url, autotask);
  });
});

describe("Autotask's REST API", () => {
  it('holds every request the adapter sent and every answer the fake gave in this file', () => {
    // The picklist tests gave All Autotask Users another value (7) on purpose; the contract takes the default's.
    const otherPublish = (call: (typeof fake.history)[number]) => call.endpoint === 'notes' && JSON.parse(call.text).publish !== 1;
    expect(autotaskContractProblems(fake.history.filter((call) => !otherPublish(call)), { publish: 1 })).toEqual([]);
    expect(autotaskContractProblems(fake.history.filter(otherPublish), { publish: 7 })).toEqual([]);
    const own = fake.history.filter((call) => !call.scripted && call.answer !== 'hang');
    expect(new Set(own.map((call) => call.endpoint))).toEqual(new Set(['ticket', 'fields', 'notes']));
    expect(new Set(own.map((call) => (call.answer as { status: number }).status))).toEqual(new Set([200, 401, 404]));
  });

  it('can fail: a note published elsewhere, under another ticket, with another field, or a call with Basic auth, are problems', () => {
    const note = fake.history.find((call) => call.endpoint === 'notes' && !call.scripted && JSON.parse(call.text).publish === 1)!;
    const read = fake.history.find((call) => call.endpoint === 'ticket' && !call.scripted)!;
    const check = (call: typeof note) => autotaskContractProblems([call], { publish: 1 });
    const base = JSON.parse(note.text) as Record<string, unknown>;
    for (const body of [{ ...base, publish: 2 }, { ...base, ticketID: 1 }, { ...base, status: 5 }, { ...base, resolution: 'x' }, { description: 'x' }]) {
      expect(check({ ...note, text: JSON.stringify(body) }), JSON.stringify(body)).not.toEqual([]);
    }
    expect(check({ ...read, headers: { ...read.headers, authorization: 'Basic eDp5' } })).not.toEqual([]);
    expect(check({ ...read, headers: { ...read.headers, secret: '' } })).not.toEqual([]);
  });
});
