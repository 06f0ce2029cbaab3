import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JiraServiceManagementHelpdesk, JSM_CREATE_COMMENT, JSM_GET_REQUEST } from '../../lambdas/adapters/helpdesks/jira-service-management.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeJsm, type FakeJsm } from '../support/fake-jsm.ts';
import { JSM_COMMENT_TEMPLATE, JSM_REQUEST_TEMPLATE, jsmContract, jsmContractProblems } from '../support/helpdesk-contracts.ts';
import { helpdeskSample } from '../support/helpdesk-samples.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';

/**
 * The Jira Service Management adapter against a stateful fake JSM site over real HTTP on loopback:
 * status category mapping (with the site's closed status names), Basic auth on every call and never
 * a second attempt after a 401, the failure reasons, the reply's exact body, that no secret reaches
 * an error, and that every request sent and every answer the fake gave fits Atlassian's OpenAPI
 * document (test/fixtures/helpdesk-apis/openapi).
 */


const EMAIL = 'agent@acme.example';
const API_TOKEN = 'ATATT3xFfGF0jsm-test-token-5c1e9b27d4a8x?F0';
const WRONG_TOKEN = 'ATATT3xFfGF0jsm-wrong-token-000000000000';
/**
 * base64("agent@acme.example:" + API_TOKEN), written out: the token is chosen so the encoding has a
 * `/` and padding, which base64url or unpadded base64 would not send (RFC 7617 asks for base64).
 */
const BASIC = 'Basic YWdlbnRAYWNtZS5leGFtcGxlOkFUQVRUM3hGZkdGMGpzbS10ZXN0LXRva2VuLTVjMWU5YjI3ZDRhOHg/RjA=';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeJsm;
/** Every HelpdeskCallFailed a test saw, searched for secrets at the end. */
const { seen: seenErrors, failure, showsNothing } = helpdeskFailures();

const adapter = (overrides: { apiToken?: string; timeoutMs?: number; closedStatusNames?: string[] } = {}) =>
  new JiraServiceManagementHelpdesk(
    { url: fake.url, email: EMAIL, apiToken: overrides.apiToken ?? API_TOKEN, closedStatusNames: overrides.closedStatusNames },
    { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true },
  );

/** Requests in each category, as a site with the ITSM template names them, and two Done statuses a site may call closed. */
const REQUESTS = [
  ['ITSM-1', 'Waiting for support', 'NEW'],
  ['ITSM-2', 'In progress', 'INDETERMINATE'],
  ['ITSM-3', 'Pending', 'UNDEFINED'],
  ['ITSM-4', 'Resolved', 'DONE'],
  ['ITSM-5', 'Closed', 'DONE'],
  ['ITSM-6', 'CANCELED', 'DONE'],
  // A site can give a status that is not done a name its admins also use for a done one.
  ['ITSM-7', 'Closed', 'INDETERMINATE'],
] as const;

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeJsm({ email: EMAIL, apiToken: API_TOKEN, now: () => clock.now().getTime() });
  for (const [key, status, category] of REQUESTS) fake.setRequest(key, status, category);
  fake.setRequest('HELPDESK-1', 'Waiting for Support', 'NEW');
  fake.setRequest('SUPPORT_2-42', 'Waiting for customer', 'INDETERMINATE');
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('JiraServiceManagementHelpdesk.readTicket', () => {
  const CLOSED_NAMES = ['  closed ', 'Canceled'];
  it.each([
    ['ITSM-1', 'Waiting for support (NEW)', 'open'],
    ['ITSM-2', 'In progress (INDETERMINATE)', 'open'],
    ['ITSM-3', 'Pending (UNDEFINED)', 'open'],
    ['ITSM-4', 'Resolved (DONE)', 'resolved'],
    ['ITSM-5', 'Closed (DONE)', 'closed'],
    ['ITSM-6', 'CANCELED (DONE)', 'closed'],
    ['ITSM-7', 'Closed (INDETERMINATE)', 'open'],
  ] as const)('reads %s as "%s", %s, with closedStatusNames set', async (key, vendorStatus, state) => {
    const ticket = await adapter({ closedStatusNames: CLOSED_NAMES }).readTicket(key);
    expect(ticket).toEqual({ externalId: key, vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.callsTo('request').map((call) => call.path)).toEqual([`/rest/servicedeskapi/request/${key}`]);
  });

  it('reads every Done status as resolved when no closed status names are configured', async () => {
    const jsm = adapter();
    for (const key of ['ITSM-4', 'ITSM-5', 'ITSM-6']) expect((await jsm.readTicket(key)).state).toBe('resolved');
    await expect(adapter({ closedStatusNames: [] }).readTicket('ITSM-5')).resolves.toMatchObject({ state: 'resolved' });
  });

  it('follows the request as it moves through its workflow', async () => {
    const jsm = adapter({ closedStatusNames: ['Closed'] });
    fake.setRequest('ITSM-80', 'Waiting for support', 'NEW');
    expect(await jsm.readTicket('ITSM-80')).toMatchObject({ state: 'open' });
    fake.setRequest('ITSM-80', 'Resolved', 'DONE');
    expect(await jsm.readTicket('ITSM-80')).toMatchObject({ vendorStatus: 'Resolved (DONE)', state: 'resolved' });
    fake.setRequest('ITSM-80', 'Closed', 'DONE');
    expect(await jsm.readTicket('ITSM-80')).toMatchObject({ vendorStatus: 'Closed (DONE)', state: 'closed' });
    // Reopened: a verified close is only ever as good as the last read.
    fake.setRequest('ITSM-80', 'In progress', 'INDETERMINATE');
    expect(await jsm.readTicket('ITSM-80')).toMatchObject({ state: 'open' });
  });

  it('reads a request by its numeric issue id as well as by its key', async () => {
    const id = fake.issueIdOf('ITSM-4')!;
    expect(id).toMatch(/^\d+$/);
    expect(await adapter().readTicket(id)).toMatchObject({ externalId: id, vendorStatus: 'Resolved (DONE)', state: 'resolved' });
    expect(await adapter().readTicket('SUPPORT_2-42')).toMatchObject({ state: 'open' });
    // Surrounding white space (a pasted reference) is not part of the key.
    expect(await adapter().readTicket(' ITSM-1\n')).toMatchObject({ externalId: 'ITSM-1' });
    expect(fake.callsTo('request').map((call) => call.path)).toEqual([
      `/rest/servicedeskapi/request/${id}`,
      '/rest/servicedeskapi/request/SUPPORT_2-42',
      '/rest/servicedeskapi/request/ITSM-1',
    ]);
  });

  it('reads the vendor example as it is', async () => {
    fake.answerNext('request', { status: 200, body: helpdeskSample('jsm-get-customer-request.response.json') });
    expect(await adapter().readTicket('HELPDESK-1')).toMatchObject({ externalId: 'HELPDESK-1', vendorStatus: 'Waiting for Support (NEW)', state: 'open' });
  });

  it('tolerates fields Atlassian adds later, though the published schema refuses them', async () => {
    const answer = helpdeskSample('jsm-get-customer-request.response.json');
    answer.currentStatus = { ...answer.currentStatus, status: 'Closed', statusCategory: 'DONE', statusColor: 'green', statusId: '10003' };
    answer.addedLater = { nested: [1, 2, 3] };
    answer._links.addedLink = 'https://your-domain.atlassian.net/added';
    // The point of this test: the snapshot's `additionalProperties: false` would refuse this answer.
    expect(jsmContract().schema('CustomerRequestDTO')(answer)).not.toEqual([]);
    fake.answerNext('request', { status: 200, body: answer });
    const ticket = await adapter({ closedStatusNames: ['closed'] }).readTicket(answer.issueKey);
    expect(ticket).toMatchObject({ externalId: 'HELPDESK-1', vendorStatus: 'Closed (DONE)', state: 'closed' });
  });

  it('calls an answer without a usable currentStatus, or about another request, or not JSON an unexpected_answer', async () => {
    const example = helpdeskSample('jsm-get-customer-request.response.json');
    const { currentStatus } = example;
    const { currentStatus: _, ...withoutStatus } = example;
    const { statusCategory: __, ...withoutCategory } = currentStatus;
    const { status: ___, ...withoutName } = currentStatus;
    const odd = [
      withoutStatus,
      { ...example, currentStatus: null },
      { ...example, currentStatus: 'DONE' },
      { ...example, currentStatus: withoutCategory },
      { ...example, currentStatus: { ...currentStatus, statusCategory: 'ARCHIVED' } },
      // The category is an upper-case enum; another spelling is not one of its values.
      { ...example, currentStatus: { ...currentStatus, statusCategory: 'done' } },
      { ...example, currentStatus: { ...currentStatus, statusCategory: { key: 'done' } } },
      { ...example, currentStatus: withoutName },
      { ...example, currentStatus: { ...currentStatus, status: '  ' } },
      // The expandable status history is not the current status.
      { ...withoutStatus, status: { values: [currentStatus] } },
      { values: [example] },
      [example],
      // Another request than the one asked for must not verify this one.
      { ...example, issueKey: 'HELPDESK-2', currentStatus: { ...currentStatus, statusCategory: 'DONE' } },
    ];
    fake.answerNext('request', ...odd.map((body) => ({ status: 200, body })), { status: 200, raw: '<html><body>Atlassian is down for maintenance</body></html>' }, { status: 204 });
    for (let i = 0; i < odd.length + 2; i++) {
      const error = await failure(adapter().readTicket('HELPDESK-1'));
      expect(error).toMatchObject({ reason: 'unexpected_answer', transient: false, call: JSM_GET_REQUEST });
    }
    // Asked by issue id, the answer's issueId must be that id.
    fake.answerNext('request', { status: 200, body: { ...example, issueId: '107002' } });
    expect((await failure(adapter().readTicket('107001'))).reason).toBe('unexpected_answer');
    fake.answerNext('request', { status: 200, body: example });
    expect(await adapter().readTicket('107001')).toMatchObject({ externalId: '107001', state: 'open' });
  });

  it('answers not_found for an unknown request, and for a reference that cannot be a JSM request without calling', async () => {
    expect((await failure(adapter().readTicket('ITSM-424242'))).reason).toBe('not_found');
    expect((await failure(adapter().readTicket('999999999'))).reason).toBe('not_found');
    expect(fake.callsTo('request')).toHaveLength(2);
    const refused = [
      '../request/ITSM-1',
      'ITSM-1/comment',
      'ITSM-1?expand=comment',
      'ITSM-1#x',
      'ITSM-%31',
      'itsm-1',
      'Itsm-1',
      'ITSM-0',
      'ITSM-01',
      'ITSM1',
      'ITSM-',
      '-1',
      '1-ITSM',
      '1TSM-1',
      '_ITSM-1',
      'IT SM-1',
      'ITSM-1-2',
      'ITSM\u20101',
      '\u00c4TSM-1',
      '0',
      '1.5',
      '',
      '   ',
    ];
    for (const ref of refused) {
      const error = await failure(adapter().readTicket(ref));
      expect(error, JSON.stringify(ref)).toMatchObject({ reason: 'not_found', call: JSM_GET_REQUEST });
      expect(error.status).toBeUndefined();
    }
    expect(fake.callsTo('request')).toHaveLength(2);
  });
});

describe('Basic auth', () => {
  it('sends exactly Basic base64(email:api_token) on every call, and nothing experimental', async () => {
    const jsm = adapter();
    await Promise.all([jsm.readTicket('ITSM-1'), jsm.readTicket('ITSM-4')]);
    await jsm.replyPublicly('ITSM-7', 'Please use this link.');
    expect(BASIC).toBe(`Basic ${Buffer.from(`${EMAIL}:${API_TOKEN}`, 'utf8').toString('base64')}`);
    expect(fake.calls).toHaveLength(3);
    for (const call of fake.calls) {
      expect(call.headers.authorization).toBe(BASIC);
      expect(call.headers.accept).toBe('application/json');
      // Neither operation is experimental (see the contract tests below), so the opt-in header is not sent.
      expect(call.headers).not.toHaveProperty('x-experimentalapi');
    }
  });

  it('refused (a wrong or revoked API token: 401) is unauthorized, with no second attempt', async () => {
    const jsm = adapter({ apiToken: WRONG_TOKEN });
    const read = await failure(jsm.readTicket('ITSM-1'));
    expect(read).toMatchObject({ reason: 'unauthorized', status: 401, transient: false, call: JSM_GET_REQUEST });
    expect(fake.callsTo('request')).toHaveLength(1);

    const reply = await failure(jsm.replyPublicly('ITSM-1', 'not with these credentials'));
    expect(reply).toMatchObject({ reason: 'unauthorized', status: 401, call: JSM_CREATE_COMMENT });
    expect(fake.callsTo('comment')).toHaveLength(1);
    expect(fake.comments('ITSM-1')).toEqual([]);
  });

  it('a 401 with the right credentials (the account deactivated meanwhile) is not retried either', async () => {
    fake.answerNext('request', { status: 401, body: { errorMessage: 'The user is not logged in.' } });
    expect(await failure(adapter().readTicket('ITSM-1'))).toMatchObject({ reason: 'unauthorized', status: 401 });
    expect(fake.callsTo('request')).toHaveLength(1);
  });

  it('classifies 403 (no permission on the service desk) as unauthorized, without a second attempt', async () => {
    fake.answerNext('request', { status: 403, body: { errorMessage: 'The user does not have permission to complete this request.' } });
    expect(await failure(adapter().readTicket('ITSM-1'))).toMatchObject({ reason: 'unauthorized', status: 403, transient: false });
    fake.answerNext('comment', { status: 403, body: {} });
    expect(await failure(adapter().replyPublicly('ITSM-1', 'x'))).toMatchObject({ reason: 'unauthorized', status: 403 });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('failures', () => {
  it('classifies 429 as rate_limited with Retry-After in seconds or as an HTTP date, and leaves the retry to the caller', async () => {
    const jsm = adapter();
    fake.answerNext('request', { status: 429, headers: { 'Retry-After': '17', 'X-RateLimit-Reason': 'jira-burst-based' }, body: {} });
    expect(await failure(jsm.readTicket('ITSM-1'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 17, transient: true });
    fake.answerNext('comment', { status: 429, headers: { 'Retry-After': new Date(clock.now().getTime() + 120_000).toUTCString() }, raw: 'Rate limited' });
    expect(await failure(jsm.replyPublicly('ITSM-1', 'x'))).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 120 });
    fake.answerNext('request', { status: 429, body: {} });
    const bare = await failure(jsm.readTicket('ITSM-1'));
    expect(bare.reason).toBe('rate_limited');
    expect(bare.retryAfterSeconds).toBeUndefined();
    expect(fake.callsTo('request')).toHaveLength(2);
    expect(fake.callsTo('comment')).toHaveLength(1);
    expect(fake.comments('ITSM-1')).toEqual([]);
  });

  it('classifies 503 and 500 as unavailable, with Retry-After when given, and does not retry', async () => {
    fake.answerNext('request', { status: 503, headers: { 'Retry-After': '30' }, raw: 'Service Unavailable' }, { status: 500, body: { errorMessage: 'Internal Server Error.' } });
    expect(await failure(adapter().readTicket('ITSM-1'))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 30, transient: true });
    const plain = await failure(adapter().readTicket('ITSM-1'));
    expect(plain).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(plain.retryAfterSeconds).toBeUndefined();
    expect(fake.callsTo('request')).toHaveLength(2);

    fake.answerNext('comment', { status: 500, body: { errorMessage: 'Internal Server Error.' } });
    expect(await failure(adapter().replyPublicly('ITSM-1', 'x'))).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(fake.callsTo('comment')).toHaveLength(1);
  });

  it('ends a hanging read and a hanging reply in timeout within the configured timeout', async () => {
    const jsm = adapter({ timeoutMs: TIMEOUT_MS });
    for (const [endpoint, call] of [
      ['request', () => jsm.readTicket('ITSM-1')],
      ['comment', () => jsm.replyPublicly('ITSM-1', 'x')],
    ] as const) {
      fake.answerNext(endpoint, 'hang');
      const started = performance.now();
      const error = await failure(call());
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({ reason: 'timeout', transient: true });
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
    }
    expect(fake.calls).toHaveLength(2);
  });

  it('calls a redirect or another 4xx an unexpected_answer, and never follows the redirect', async () => {
    fake.answerNext('request', { status: 302, headers: { Location: 'https://id.atlassian.com/login' } }, { status: 400, body: { errorMessage: 'The HTTP request is invalid.' } });
    expect(await failure(adapter().readTicket('ITSM-1'))).toMatchObject({ reason: 'unexpected_answer', status: 302 });
    expect(await failure(adapter().readTicket('ITSM-1'))).toMatchObject({ reason: 'unexpected_answer', status: 400, transient: false });
    expect(fake.calls).toHaveLength(2);
  });
});

describe('JiraServiceManagementHelpdesk.replyPublicly', () => {
  it('sends exactly the documented public comment and nothing else, once, and answers the comment id', async () => {
    const text = 'Please submit the requested credential here: https://example.invalid/r/EXAMPLE';
    const reply = await adapter().replyPublicly('ITSM-2', text);

    const [call, ...more] = fake.callsTo('comment');
    expect(more).toEqual([]);
    expect(fake.calls).toHaveLength(1);
    expect(call!.method).toBe('POST');
    expect(call!.path).toBe('/rest/servicedeskapi/request/ITSM-2/comment');
    expect(call!.headers['content-type']).toBe('application/json');
    // Byte for byte: the comment and its visibility, nothing else (no status change, no expand).
    expect(call!.text).toBe(JSON.stringify({ body: text, public: true }));

    const posted = fake.comments('ITSM-2');
    expect(posted).toEqual([{ id: expect.any(String), body: text, public: true }]);
    expect(reply).toEqual({ commentId: posted[0]!.id });
  });

  it('sends the vendor example request for the vendor example text', async () => {
    await adapter().replyPublicly(fake.issueIdOf('ITSM-3')!, 'Hello there');
    const [call] = fake.callsTo('comment');
    expect(call!.path).toBe(`/rest/servicedeskapi/request/${fake.issueIdOf('ITSM-3')}/comment`);
    expect(JSON.parse(call!.text)).toEqual(helpdeskSample('jsm-create-request-comment.request.json'));
    expect(fake.comments('ITSM-3').at(-1)).toMatchObject({ body: 'Hello there', public: true });
  });

  it('posts to a request in the Done category too: JSM takes comments on resolved and closed requests', async () => {
    expect(await adapter().replyPublicly('ITSM-5', 'after closing')).toEqual({ commentId: expect.any(String) });
    expect(fake.comments('ITSM-5').map((comment) => comment.body)).toEqual(['after closing']);
  });

  it("tolerates an answer that names no comment and one with added fields; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    const example = helpdeskSample('jsm-create-request-comment.response.json');
    const { id: _, ...withoutId } = example;
    fake.answerNext(
      'comment',
      { status: 201, body: example },
      { status: 201, body: { ...example, id: 10042, addedLater: true } },
      { status: 201, body: withoutId },
      { status: 201, body: { ...example, id: '' } },
      { status: 201, raw: 'Created' },
      { status: 201 },
    );
    expect(await adapter().replyPublicly('ITSM-1', 'a')).toEqual({ commentId: '1000' });
    expect(await adapter().replyPublicly('ITSM-1', 'b')).toEqual({ commentId: '10042' });
    for (const text of ['c', 'd']) expect(await adapter().replyPublicly('ITSM-1', text)).toEqual({});
    for (const text of ['e', 'f']) expect(await failure(adapter().replyPublicly('ITSM-1', text))).toMatchObject({ reason: 'unexpected_answer', call: JSM_CREATE_COMMENT });
    expect(fake.callsTo('comment')).toHaveLength(6);
  });

  it('answers not_found for an unknown request, and for a reference that cannot be one without calling', async () => {
    expect(await failure(adapter().replyPublicly('ITSM-424242', 'x'))).toMatchObject({ reason: 'not_found', status: 404, call: JSM_CREATE_COMMENT });
    for (const ref of ['ITSM-1/../ITSM-2', 'ITSM-1/comment', 'itsm-1', '']) {
      expect(await failure(adapter().replyPublicly(ref, 'x'))).toMatchObject({ reason: 'not_found', call: JSM_CREATE_COMMENT });
    }
    expect(fake.callsTo('comment')).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('refuses a site address that is not https, or is more than the site', () => {
    const make = (url: string) => () => new JiraServiceManagementHelpdesk({ url, email: EMAIL, apiToken: API_TOKEN });
    const refusals = ['http://acme.atlassian.net', 'https://acme.atlassian.net/servicedesk', 'https://agent:pw@acme.atlassian.net', 'https://acme.atlassian.net?x=1', 'acme.atlassian.net', fake.url];
    for (const url of refusals) {
      expect(make(url), url).toThrow(TypeError);
      try {
        make(url)();
      } catch (error) {
        seenErrors.push(error);
        expect(String(error)).toMatch(/^TypeError: The Jira Service Management URL/);
      }
    }
    expect(make('https://acme.atlassian.net')).not.toThrow();
    expect(make('https://acme.atlassian.net/')).not.toThrow();
  });
});

describe('secrets', () => {
  it('never shows the API token or the Basic credentials in an error, nor in the adapter when it is logged', async () => {
    const jsm = adapter();
    await jsm.readTicket('ITSM-1');
    const encoded = (token: string) => Buffer.from(`${EMAIL}:${token}`, 'utf8').toString('base64');
    const secrets = [API_TOKEN, WRONG_TOKEN, encoded(API_TOKEN), encoded(WRONG_TOKEN), `${EMAIL}:${API_TOKEN}`];
    showsNothing([...secrets, EMAIL], fake.url, jsm, 40);
  });
});

describe('the JSM OpenAPI subset', () => {
  it('names the calls, declares Basic auth and marks neither operation experimental', () => {
    const { document } = jsmContract();
    const read = document.paths[JSM_REQUEST_TEMPLATE].get;
    const comment = document.paths[JSM_COMMENT_TEMPLATE].post;
    expect(JSM_GET_REQUEST).toBe(`JSM ${read.operationId}`);
    expect(JSM_CREATE_COMMENT).toBe(`JSM ${comment.operationId}`);
    expect(document.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    for (const operation of [read, comment]) {
      expect(operation.deprecated).toBe(false);
      expect(Object.keys(operation).filter((key) => /experimental/i.test(key))).toEqual([]);
      // `(Experimental)` appears only on an `expand` value the adapter never asks for.
      expect(`${operation.summary} ${operation.description}`).not.toMatch(/experimental/i);
    }
    expect(document.components.schemas.CustomerRequestStatusDTO.properties.statusCategory.enum).toEqual(['UNDEFINED', 'NEW', 'INDETERMINATE', 'DONE']);
  });

  it('holds every request the adapter sent and every answer the fake gave in this file', () => {
    expect(jsmContractProblems(fake.history)).toEqual([]);
    // The check covered both operations, an answer of the fake's own to each, and its refusals.
    expect(new Set(fake.history.map((call) => call.endpoint))).toEqual(new Set(['request', 'comment']));
    const ownAnswers = fake.history.flatMap((call) => (call.scripted || call.answer === 'hang' ? [] : [{ endpoint: call.endpoint, status: call.answer.status }]));
    expect(new Set(ownAnswers.filter((answer) => answer.status < 300).map((answer) => answer.endpoint))).toEqual(new Set(['request', 'comment']));
    expect(new Set(ownAnswers.map((answer) => answer.status))).toEqual(new Set([200, 201, 401, 404]));
  });

  it('holds the vendor samples the fake and the tests are built from', () => {
    const { schema } = jsmContract();
    expect(schema('CustomerRequestDTO')(helpdeskSample('jsm-get-customer-request.response.json'))).toEqual([]);
    expect(schema('CommentCreateDTO')(helpdeskSample('jsm-create-request-comment.request.json'))).toEqual([]);
    expect(schema('CommentDTO')(helpdeskSample('jsm-create-request-comment.response.json'))).toEqual([]);
    // The contract check can fail: a category outside the enum, and a field the snapshot does not know, are refused.
    const example = helpdeskSample('jsm-get-customer-request.response.json');
    expect(schema('CustomerRequestDTO')({ ...example, currentStatus: { ...example.currentStatus, statusCategory: 'ARCHIVED' } })).not.toEqual([]);
    expect(schema('CommentCreateDTO')({ body: 'x', public: true, internal: false })).not.toEqual([]);
  });
});
