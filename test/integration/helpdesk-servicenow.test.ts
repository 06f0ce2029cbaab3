import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SERVICENOW_CALLS, ServiceNowHelpdesk } from '../../lambdas/adapters/helpdesks/servicenow.ts';
import { serviceNowContractProblems } from '../support/contract-servicenow.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { SERVICENOW_RATE_LIMITED, startFakeServiceNow, type FakeServiceNow } from '../support/fake-servicenow.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';
import { helpdeskSample } from '../support/helpdesk-samples.ts';

/**
 * The ServiceNow adapter against a stateful fake instance over real HTTP on loopback: the incident
 * state mapping, both ways of naming an incident (its number and its sys_id) and the references
 * refused before any call, Basic auth on every call and never a second attempt after a 401, the
 * failure reasons (the vendor's 429 with Retry-After among them), the reply's exact body (the
 * customer-visible `comments` alone), that no secret reaches an error, and that every request and
 * every answer of the fake fits the Table API's documentation.
 */

const USERNAME = 'svc.handoff';
const PASSWORD = 'Sn0w!integration-pass?word/42';
const WRONG_PASSWORD = 'not-the-integration-password';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeServiceNow;
const { failure, showsNothing } = helpdeskFailures();

const adapter = (overrides: { password?: string; timeoutMs?: number } = {}) =>
  new ServiceNowHelpdesk({ url: fake.url, username: USERNAME, password: overrides.password ?? PASSWORD }, { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true });

/** One incident in each of the instance's default states. */
const INCIDENTS = [
  ['INC0010001', '1', 'New (state 1)', 'open'],
  ['INC0010002', '2', 'In Progress (state 2)', 'open'],
  ['INC0010003', '3', 'On Hold (state 3)', 'open'],
  ['INC0010006', '6', 'Resolved (state 6)', 'resolved'],
  ['INC0010007', '7', 'Closed (state 7)', 'closed'],
  ['INC0010008', '8', 'Canceled (state 8)', 'closed'],
] as const;

const READ_QUERY = 'sysparm_fields=sys_id%2Cnumber%2Cstate&sysparm_display_value=false';
const numberQuery = (number: string) => `/api/now/table/incident?sysparm_query=number%3D${number}&${READ_QUERY}&sysparm_limit=2&sysparm_no_count=true`;

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeServiceNow({ username: USERNAME, password: PASSWORD });
  for (const [number, state] of INCIDENTS) fake.setIncident(number, state);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('ServiceNowHelpdesk.readTicket', () => {
  it.each(INCIDENTS)('reads %s (state %s) as "%s", %s, by its number in one query', async (number, _state, vendorStatus, state) => {
    expect(await adapter().readTicket(number)).toEqual({ externalId: number, vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual([['GET', numberQuery(number)]]);
  });

  it('reads an incident by its sys_id at the record path, asking for the same three stored fields', async () => {
    const sysId = fake.sysIdOf('INC0010006')!;
    expect(await adapter().readTicket(sysId)).toMatchObject({ externalId: sysId, vendorStatus: 'Resolved (state 6)', state: 'resolved' });
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual([['GET', `/api/now/table/incident/${sysId}?${READ_QUERY}`]]);
    // Surrounding white space (a pasted reference) is not part of it.
    expect(await adapter().readTicket(' INC0010001\n')).toMatchObject({ externalId: 'INC0010001', state: 'open' });
  });

  it('follows the incident through its life, reopened included', async () => {
    const servicenow = adapter();
    fake.setIncident('INC0020001', '2');
    expect((await servicenow.readTicket('INC0020001')).state).toBe('open');
    fake.setIncident('INC0020001', '6');
    expect((await servicenow.readTicket('INC0020001')).state).toBe('resolved');
    fake.setIncident('INC0020001', '2');
    expect((await servicenow.readTicket('INC0020001')).state).toBe('open');
    fake.setIncident('INC0020001', '7');
    expect((await servicenow.readTicket('INC0020001')).state).toBe('closed');
  });

  it('reads the vendor example as it is, every other field passed over', async () => {
    const example = helpdeskSample('servicenow-get-incident.response.json');
    fake.answerNext('record', { status: 200, body: example });
    expect(await adapter().readTicket(example.result.sys_id)).toMatchObject({ externalId: example.result.sys_id, vendorStatus: 'New (state 1)', state: 'open' });
    fake.answerNext('query', { status: 200, body: { result: [example.result] } });
    expect(await adapter().readTicket(example.result.number)).toMatchObject({ externalId: 'INC0000046', state: 'open' });
  });

  it('calls a state outside the defaults, a display value, or an answer about another incident an unexpected_answer', async () => {
    const example = helpdeskSample('servicenow-get-incident.response.json').result;
    const odd = [
      // States an instance added, or none: never guessed at.
      { result: { ...example, state: '4' } },
      { result: { ...example, state: '9' } },
      { result: { ...example, state: '' } },
      { result: { ...example, state: 6 } },
      // A display value (a label) is not the stored value the mapping is for.
      { result: { ...example, state: 'Closed' } },
      { result: { ...example, state: { display_value: 'Closed', value: '7' } } },
      { result: { ...example, sys_id: 'b9e30c7dc61122760116894de7bcc7bd', state: '7' } },
      { result: [example] },
      { result: null },
      example,
      [example],
    ];
    fake.answerNext('record', ...odd.map((body) => ({ status: 200, body })), { status: 200, raw: '<html><body>Instance hibernating</body></html>' }, { status: 204 });
    for (let i = 0; i < odd.length + 2; i++) {
      expect(await failure(adapter().readTicket(example.sys_id))).toMatchObject({ reason: 'unexpected_answer', transient: false, call: SERVICENOW_CALLS.getRecord });
    }
    // By number: two matches make the number ambiguous; another number is another incident.
    for (const result of [[example, { ...example, sys_id: 'c9e30c7dc61122760116894de7bcc7bd' }], [{ ...example, number: 'INC0000047' }], example, [{ ...example, sys_id: 'not-a-sys-id' }]]) {
      fake.answerNext('query', { status: 200, body: { result } });
      expect(await failure(adapter().readTicket('INC0000046'))).toMatchObject({ reason: 'unexpected_answer', call: SERVICENOW_CALLS.queryByNumber });
    }
  });

  it('answers not_found for an unknown incident, and for a reference that is neither a number nor a sys_id without calling', async () => {
    expect(await failure(adapter().readTicket('INC9999999'))).toMatchObject({ reason: 'not_found', status: 200, call: SERVICENOW_CALLS.queryByNumber });
    expect(await failure(adapter().readTicket('0123456789abcdef0123456789abcdef'))).toMatchObject({ reason: 'not_found', status: 404, call: SERVICENOW_CALLS.getRecord });
    // Table API v1 answers an empty query with 404.
    fake.answerNext('query', { status: 404, body: { error: { message: 'No Record found', detail: '' }, status: 'failure' } });
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'not_found', status: 404 });
    expect(fake.calls).toHaveLength(3);
    const refused = [
      'INC0010001^ORstate=7',
      'INC0010001^NQactive=true',
      'number=INC0010001',
      'INC0010001&sysparm_query=state=7',
      'INC0010001/../INC0010002',
      '../incident',
      'inc0010001',
      'INC-0010001',
      'INC 0010001',
      'INC',
      '0010001',
      'INC0010001x',
      'INC\u00d80010001',
      'A9E30C7DC61122760116894DE7BCC7BD',
      'a9e30c7dc61122760116894de7bcc7b',
      'a9e30c7dc61122760116894de7bcc7bd0',
      'a9e30c7d-c611-2276-0116-894de7bcc7bd',
      '',
      '   ',
    ];
    for (const ref of refused) {
      const error = await failure(adapter().readTicket(ref));
      expect(error, JSON.stringify(ref)).toMatchObject({ reason: 'not_found', call: SERVICENOW_CALLS.getRecord });
      expect(error.status).toBeUndefined();
    }
    expect(fake.calls).toHaveLength(3);
  });
});

describe('Basic auth', () => {
  it('sends exactly Basic base64(user:password) on every call', async () => {
    const servicenow = adapter();
    await servicenow.readTicket('INC0010001');
    await servicenow.replyPublicly('INC0010002', 'Please use this link.');
    const basic = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`, 'utf8').toString('base64')}`;
    expect(fake.calls).toHaveLength(3);
    for (const call of fake.calls) {
      expect(call.headers.authorization).toBe(basic);
      expect(call.headers.accept).toBe('application/json');
    }
  });

  it('refused (a wrong or changed password: 401) is unauthorized, with no second attempt and nothing posted', async () => {
    const servicenow = adapter({ password: WRONG_PASSWORD });
    expect(await failure(servicenow.readTicket('INC0010001'))).toMatchObject({ reason: 'unauthorized', status: 401, transient: false });
    const sysId = fake.sysIdOf('INC0010001')!;
    expect(await failure(servicenow.replyPublicly(sysId, 'not with these credentials'))).toMatchObject({ reason: 'unauthorized', status: 401, call: SERVICENOW_CALLS.patchRecord });
    expect(fake.calls).toHaveLength(2);
    expect(fake.journal('INC0010001')).toEqual([]);
  });

  it('classifies 403 (an ACL denies the integration user) as unauthorized', async () => {
    fake.answerNext('query', { status: 403, body: { error: { message: 'Operation Failed', detail: 'ACL Exception Update Failed due to security constraints' }, status: 'failure' } });
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'unauthorized', status: 403 });
    expect(fake.calls).toHaveLength(1);
  });
});

describe('failures', () => {
  it("reads the vendor's 429 as rate_limited with its Retry-After, and leaves the retry to the caller", async () => {
    fake.rateLimitNext('query', 3_600);
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 3_600, transient: true });
    expect(fake.calls.at(-1)!.answer).toEqual({ status: 429, body: SERVICENOW_RATE_LIMITED });
    fake.answerNext('update', { status: 429, headers: { 'Retry-After': new Date(clock.now().getTime() + 90_000).toUTCString() }, body: SERVICENOW_RATE_LIMITED });
    const sysId = fake.setIncident('INC0030001', '2');
    expect(await failure(adapter().replyPublicly(sysId, 'x'))).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 90 });
    expect(fake.calls).toHaveLength(2);
    expect(fake.journal(sysId)).toEqual([]);
  });

  it('classifies 503 and 500 as unavailable, with Retry-After when given', async () => {
    fake.answerNext('query', { status: 503, headers: { 'Retry-After': '30' }, raw: 'Service Unavailable' }, { status: 500, body: { error: { message: 'Internal error' }, status: 'failure' } });
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 30, transient: true });
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(fake.calls).toHaveLength(2);
  });

  it('ends a hanging read, lookup and update in timeout within the configured timeout', async () => {
    const servicenow = adapter({ timeoutMs: TIMEOUT_MS });
    const sysId = fake.sysIdOf('INC0010001')!;
    for (const [endpoint, call] of [
      ['record', () => servicenow.readTicket(sysId)],
      ['query', () => servicenow.replyPublicly('INC0010001', 'x')],
      ['update', () => servicenow.replyPublicly(sysId, 'x')],
    ] as const) {
      fake.answerNext(endpoint, 'hang');
      const started = performance.now();
      expect(await failure(call())).toMatchObject({ reason: 'timeout', transient: true });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
    }
    expect(fake.calls).toHaveLength(3);
  });

  it('calls a redirect (a hibernating developer instance) or another 4xx an unexpected_answer, never following it', async () => {
    fake.answerNext('query', { status: 302, headers: { Location: 'https://developer.servicenow.com/wake' } }, { status: 400, body: { error: { message: 'Bad request' }, status: 'failure' } });
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'unexpected_answer', status: 302 });
    expect(await failure(adapter().readTicket('INC0010001'))).toMatchObject({ reason: 'unexpected_answer', status: 400 });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('ServiceNowHelpdesk.replyPublicly', () => {
  it('PATCHes exactly {comments} by sys_id, once: a customer-visible comment and no other field', async () => {
    const text = 'Please submit the requested credential here: https://example.invalid/r/EXAMPLE';
    const sysId = fake.sysIdOf('INC0010003')!;
    expect(await adapter().replyPublicly(sysId, text)).toEqual({});
    const [call, ...more] = fake.calls;
    expect(more).toEqual([]);
    expect(call).toMatchObject({ endpoint: 'update', method: 'PATCH', path: `/api/now/table/incident/${sysId}?sysparm_fields=sys_id` });
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.text).toBe(JSON.stringify({ comments: text }));
    expect(fake.journal(sysId)).toEqual([{ field: 'comments', text }]);
    // On Hold before, On Hold after: the reply changes nothing else.
    expect(fake.fieldsOf('INC0010003')).toEqual({ state: '3' });
  });

  it('looks a number up first, then PATCHes that sys_id', async () => {
    await adapter().replyPublicly('INC0010001', 'by number');
    expect(fake.calls.map((call) => [call.endpoint, call.method, call.path])).toEqual([
      ['query', 'GET', numberQuery('INC0010001')],
      ['update', 'PATCH', `/api/now/table/incident/${fake.sysIdOf('INC0010001')}?sysparm_fields=sys_id`],
    ]);
    expect(fake.journal('INC0010001').at(-1)).toEqual({ field: 'comments', text: 'by number' });
  });

  it("sends the vendor example's comments field, without the example's other changes", async () => {
    const example = helpdeskSample('servicenow-patch-incident-comments.request.json');
    await adapter().replyPublicly('INC0010002', example.comments);
    expect(JSON.parse(fake.callsTo('update')[0]!.text)).toEqual({ comments: example.comments });
    expect(Object.keys(example)).toEqual(expect.arrayContaining(['assigned_to', 'urgency', 'comments']));
    expect(fake.fieldsOf('INC0010002')).toEqual({ state: '2' });
  });

  it('posts in a resolved or closed incident too, and leaves its state alone', async () => {
    await adapter().replyPublicly('INC0010007', 'after closing');
    expect(fake.journal('INC0010007')).toEqual([{ field: 'comments', text: 'after closing' }]);
    expect(fake.fieldsOf('INC0010007')).toEqual({ state: '7' });
  });

  it("tolerates an answer that is the whole record; an empty one, or a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    const sysId = fake.sysIdOf('INC0010001')!;
    fake.answerNext('update', { status: 200, body: helpdeskSample('servicenow-get-incident.response.json') }, { status: 200 }, { status: 200, raw: 'OK' });
    expect(await adapter().replyPublicly(sysId, 'a')).toEqual({});
    for (const text of ['b', 'c']) expect(await failure(adapter().replyPublicly(sysId, text))).toMatchObject({ reason: 'unexpected_answer', call: SERVICENOW_CALLS.patchRecord });
    expect(fake.callsTo('update')).toHaveLength(3);
  });

  it('answers not_found for an unknown incident, and refuses a reference that cannot be one, posting nothing', async () => {
    expect(await failure(adapter().replyPublicly('INC9999999', 'x'))).toMatchObject({ reason: 'not_found', call: SERVICENOW_CALLS.queryByNumber });
    expect(await failure(adapter().replyPublicly('0123456789abcdef0123456789abcdef', 'x'))).toMatchObject({ reason: 'not_found', status: 404, call: SERVICENOW_CALLS.patchRecord });
    for (const ref of ['INC0010001^ORnumber=INC0010002', `${fake.sysIdOf('INC0010001')}/../x`, 'inc0010001', '']) {
      expect(await failure(adapter().replyPublicly(ref, 'x'))).toMatchObject({ reason: 'not_found', call: SERVICENOW_CALLS.patchRecord });
    }
    expect(fake.calls.map((call) => call.endpoint)).toEqual(['query', 'update']);
  });
});

describe('configuration', () => {
  it('refuses an instance address that is not https, or is more than the instance', () => {
    const make = (url: string) => () => new ServiceNowHelpdesk({ url, username: USERNAME, password: PASSWORD });
    for (const url of ['http://acme.service-now.com', 'https://acme.service-now.com/now/nav/ui', 'https://svc:pw@acme.service-now.com', 'https://acme.service-now.com?x=1', fake.url]) {
      expect(make(url), url).toThrow(/^The ServiceNow URL/);
    }
    expect(make('https://acme.service-now.com')).not.toThrow();
  });
});

describe('secrets', () => {
  it('never shows the password or the Basic credentials in an error, nor in the adapter when it is logged', async () => {
    const servicenow = adapter();
    await servicenow.readTicket('INC0010001');
    const encoded = (password: string) => Buffer.from(`${USERNAME}:${password}`, 'utf8').toString('base64');
    const secrets = [PASSWORD, WRONG_PASSWORD, encoded(PASSWORD), encoded(WRONG_PASSWORD), USERNAME];
    showsNothing(secrets, fake.url, servicenow, 40);
  });
});

describe('the Table API contract', () => {
  it('holds every request the adapter sent and every answer the fake gave in this file', () => {
    expect(serviceNowContractProblems(fake.history)).toEqual([]);
    const own = fake.history.filter((call) => !call.scripted && call.answer !== 'hang');
    expect(new Set(own.map((call) => call.endpoint))).toEqual(new Set(['record', 'query', 'update']));
    expect(new Set(own.map((call) => (call.answer as { status: number }).status))).toEqual(new Set([200, 401, 404]));
  });

  it('can fail: a reply that also sets work_notes or the state, and an undocumented parameter, are problems', () => {
    const reply = fake.history.find((call) => call.endpoint === 'update' && !call.scripted)!;
    expect(serviceNowContractProblems([{ ...reply, text: JSON.stringify({ comments: 'x', work_notes: 'y' }) }])).not.toEqual([]);
    expect(serviceNowContractProblems([{ ...reply, text: JSON.stringify({ comments: 'x', state: '6' }) }])).not.toEqual([]);
    expect(serviceNowContractProblems([{ ...reply, path: `${reply.path}&sysparm_suppress_auto_sys_field=true` }])).not.toEqual([]);
  });
});
