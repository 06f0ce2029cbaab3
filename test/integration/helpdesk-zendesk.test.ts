import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZendeskHelpdesk, ZENDESK_SCOPE } from '../../lambdas/adapters/helpdesks/zendesk.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeZendesk, ZENDESK_STATUSES, type FakeZendesk } from '../support/fake-zendesk.ts';
import { zendeskContract, zendeskContractProblems } from '../support/helpdesk-contracts.ts';
import { helpdeskSample } from '../support/helpdesk-samples.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';

/**
 * The Zendesk adapter against a stateful fake Zendesk over real HTTP on loopback: status mapping,
 * the OAuth token's life (fetched once, refreshed on expiry and after a 401), the failure reasons,
 * the reply's exact body, that no secret reaches an error, and that every request sent and every
 * answer the fake gave fits Zendesk's OpenAPI document (test/fixtures/helpdesk-apis/openapi).
 */


const CLIENT_ID = 'credential-handoff';
const CLIENT_SECRET = 'zd-client-secret-7f3c9a1e5b2d4068';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;

let clock: FakeClock;
let fake: FakeZendesk;
/** Every HelpdeskCallFailed a test saw, searched for secrets at the end. */
const { failure, showsNothing } = helpdeskFailures();

const adapter = (overrides: { clientSecret?: string; timeoutMs?: number; tokenLifetimeSeconds?: number } = {}) =>
  new ZendeskHelpdesk(
    { url: fake.url, clientId: CLIENT_ID, clientSecret: overrides.clientSecret ?? CLIENT_SECRET },
    { clock, timeoutMs: overrides.timeoutMs ?? 5_000, tokenLifetimeSeconds: overrides.tokenLifetimeSeconds, allowLoopback: true },
  );


beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeZendesk({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => clock.now().getTime() });
  for (const [index, status] of ZENDESK_STATUSES.entries()) fake.setTicket(1001 + index, status);
  fake.setTicket(35436, 'open');
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('ZendeskHelpdesk.readTicket', () => {
  const expected = { new: 'open', open: 'open', pending: 'open', hold: 'open', solved: 'resolved', closed: 'closed' } as const;
  it.each(ZENDESK_STATUSES.map((status, index) => [status, expected[status], String(1001 + index)]))(
    'reads Zendesk status %s as %s, keeping the vendor word',
    async (status, state, id) => {
      const ticket = await adapter().readTicket(id);
      expect(ticket).toEqual({ externalId: id, vendorStatus: status, state, readAt: clock.now().toISOString() });
      expect(fake.callsTo('show').map((call) => call.path)).toEqual([`/api/v2/tickets/${id}`]);
    },
  );

  it('tolerates every other field of a real answer, and fields Zendesk adds later', async () => {
    const answer = helpdeskSample('zendesk-show-ticket.response.json');
    answer.ticket.status = 'solved';
    answer.ticket.added_later = { nested: [1, 2, 3] };
    answer.sideloaded_users = [{ id: 1 }];
    fake.answerNext('show', { status: 200, body: answer });
    const ticket = await adapter().readTicket(String(answer.ticket.id));
    expect(ticket).toMatchObject({ externalId: '35436', vendorStatus: 'solved', state: 'resolved' });
  });

  it('calls an answer without ticket.status, with a status it does not know, or not JSON an unexpected_answer', async () => {
    const { ticket } = helpdeskSample('zendesk-show-ticket.response.json');
    const { status: _, ...withoutStatus } = ticket;
    fake.answerNext(
      'show',
      { status: 200, body: { ticket: withoutStatus } },
      { status: 200, body: { ticket: { ...ticket, status: 'archived' } } },
      { status: 200, body: { tickets: [ticket] } },
      { status: 200, raw: '<html><body>Maintenance</body></html>' },
      // Another ticket than the one asked for must not verify this one.
      { status: 200, body: { ticket: { ...ticket, id: 99, status: 'closed' } } },
    );
    for (let i = 0; i < 5; i++) {
      const error = await failure(adapter().readTicket('35436'));
      expect(error.reason).toBe('unexpected_answer');
      expect(error.transient).toBe(false);
    }
  });

  it('answers not_found for an unknown ticket, and for an id that cannot be a Zendesk ticket without calling', async () => {
    expect((await failure(adapter().readTicket('424242'))).reason).toBe('not_found');
    expect(fake.callsTo('show')).toHaveLength(1);
    for (const id of ['../users/1', 'ZD-35436', '35436.json', '', '0']) {
      expect((await failure(adapter().readTicket(id))).reason).toBe('not_found');
    }
    expect(fake.callsTo('show')).toHaveLength(1);
  });
});

describe('the OAuth token', () => {
  it('asks for a client-credentials token as documented, once, and reuses it for reads and replies', async () => {
    const zendesk = adapter();
    // Calls that start together share the one token request.
    await Promise.all([zendesk.readTicket('1001'), zendesk.readTicket('1002'), zendesk.readTicket('1003')]);
    await zendesk.replyPublicly('35436', 'Please use this link.');
    await zendesk.readTicket('1004');

    const [tokenCall, ...more] = fake.callsTo('token');
    expect(more).toEqual([]);
    expect(tokenCall!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(tokenCall!.text)).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: ZENDESK_SCOPE,
      expires_in: 1_800,
    });
    expect(ZENDESK_SCOPE).toBe('tickets:read tickets:write');
    const token = (tokenCall!.answer as { body: { access_token: string } }).body.access_token;
    const resourceCalls = fake.calls.filter((call) => call.endpoint !== 'token');
    expect(resourceCalls).toHaveLength(5);
    for (const call of resourceCalls) expect(call.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('is refreshed shortly before it expires, not after', async () => {
    const zendesk = adapter();
    await zendesk.readTicket('1001');
    clock.advance((1_800 - 61) * 1000);
    await zendesk.readTicket('1001');
    expect(fake.callsTo('token')).toHaveLength(1);
    clock.advance(2_000);
    await zendesk.readTicket('1001');
    expect(fake.callsTo('token')).toHaveLength(2);
    // The refresh happened before the fake would refuse the old token: no 401 was ever answered.
    expect(fake.calls.filter((call) => call.answer !== 'hang' && call.answer.status === 401)).toEqual([]);
  });

  it('asks for the lifetime configured', async () => {
    await adapter({ tokenLifetimeSeconds: 7_200 }).readTicket('1001');
    expect(JSON.parse(fake.callsTo('token')[0]!.text).expires_in).toBe(7_200);
  });

  it('is kept until refused when Zendesk gives no expires_in', async () => {
    const legacy = await startFakeZendesk({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => clock.now().getTime(), tokenLifetime: null });
    try {
      legacy.setTicket(7, 'open');
      const zendesk = new ZendeskHelpdesk({ url: legacy.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, { clock, allowLoopback: true });
      await zendesk.readTicket('7');
      expect((legacy.callsTo('token')[0]!.answer as { body: object }).body).not.toHaveProperty('expires_in');
      clock.advance(30 * 24 * 3600 * 1000);
      await zendesk.readTicket('7');
      expect(legacy.callsTo('token')).toHaveLength(1);
      legacy.revokeTokens();
      await zendesk.readTicket('7');
      expect(legacy.callsTo('token')).toHaveLength(2);
    } finally {
      await legacy.close();
    }
  });

  it('is replaced after a 401 and the call made once more, for a read and for a reply', async () => {
    const zendesk = adapter();
    await zendesk.readTicket('1001');
    fake.revokeTokens();
    expect(await zendesk.readTicket('1005')).toMatchObject({ state: 'resolved' });
    expect(fake.callsTo('token')).toHaveLength(2);
    expect(fake.callsTo('show').map((call) => (call.answer as { status: number }).status)).toEqual([200, 401, 200]);

    fake.revokeTokens();
    const before = fake.comments(35436).length;
    await zendesk.replyPublicly('35436', 'Link after a revoked token.');
    expect(fake.callsTo('update').map((call) => (call.answer as { status: number }).status)).toEqual([401, 200]);
    // Posted exactly once: the refused PUT did nothing.
    expect(fake.comments(35436).slice(before).map((comment) => comment.body)).toEqual(['Link after a revoked token.']);
  });

  it('is not retried more than once: a second 401 is unauthorized', async () => {
    const zendesk = adapter();
    fake.answerNext('show', { status: 401, body: { error: "Couldn't authenticate you" } }, { status: 401, body: { error: "Couldn't authenticate you" } });
    const error = await failure(zendesk.readTicket('1001'));
    expect(error).toMatchObject({ reason: 'unauthorized', status: 401, transient: false });
    expect(fake.callsTo('show')).toHaveLength(2);
    expect(fake.callsTo('token')).toHaveLength(2);
  });

  it('refused by the token endpoint (a wrong secret) is unauthorized, and no ticket call is made', async () => {
    const error = await failure(adapter({ clientSecret: 'zd-wrong-secret-0000000000000000' }).readTicket('1001'));
    expect(error).toMatchObject({ reason: 'unauthorized', status: 401 });
    expect(error.message).toContain('CreateTokenForGrantType');
    expect(fake.callsTo('show')).toEqual([]);
  });
});

describe('failures', () => {
  it('classifies 403 (a missing scope) as unauthorized, without a second attempt', async () => {
    fake.answerNext('show', { status: 403, body: { error: 'Forbidden' } });
    expect(await failure(adapter().readTicket('1001'))).toMatchObject({ reason: 'unauthorized', status: 403 });
    expect(fake.callsTo('show')).toHaveLength(1);
    expect(fake.callsTo('token')).toHaveLength(1);
  });

  it('classifies 429 as rate_limited with Retry-After in seconds or as an HTTP date, and leaves the retry to the caller', async () => {
    const zendesk = adapter();
    // Zendesk's documented 429: text/html with Retry-After in seconds.
    fake.answerNext('show', { status: 429, headers: { 'Retry-After': '93' }, raw: 'Rate limit for ticket updates exceeded, please wait before updating this ticket again' });
    expect(await failure(zendesk.readTicket('1001'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 93, transient: true });
    fake.answerNext('update', { status: 429, headers: { 'Retry-After': new Date(clock.now().getTime() + 120_000).toUTCString() }, body: {} });
    expect(await failure(zendesk.replyPublicly('35436', 'x'))).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 120 });
    fake.answerNext('show', { status: 429, body: {} });
    const bare = await failure(zendesk.readTicket('1001'));
    expect(bare.reason).toBe('rate_limited');
    expect(bare.retryAfterSeconds).toBeUndefined();
    expect(fake.callsTo('show')).toHaveLength(2);
    expect(fake.callsTo('update')).toHaveLength(1);
  });

  it('classifies 503 and 500 as unavailable, with Retry-After when given, and does not retry', async () => {
    fake.answerNext('show', { status: 503, headers: { 'Retry-After': '30' }, raw: 'Service Unavailable' }, { status: 500, body: { error: 'InternalError' } });
    expect(await failure(adapter().readTicket('1001'))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 30, transient: true });
    const plain = await failure(adapter().readTicket('1001'));
    expect(plain).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(plain.retryAfterSeconds).toBeUndefined();
    expect(fake.callsTo('show')).toHaveLength(2);
  });

  it('ends a hanging call in timeout within the configured timeout', async () => {
    const zendesk = adapter({ timeoutMs: TIMEOUT_MS });
    await zendesk.readTicket('1001'); // the token first, so only the read hangs
    fake.answerNext('show', 'hang');
    const started = performance.now();
    const error = await failure(zendesk.readTicket('1001'));
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ reason: 'timeout', transient: true });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
  });

  it('ends a hanging token request in timeout too', async () => {
    fake.answerNext('token', 'hang');
    expect((await failure(adapter({ timeoutMs: TIMEOUT_MS }).readTicket('1001'))).reason).toBe('timeout');
    expect(fake.callsTo('show')).toEqual([]);
  });
});

describe('ZendeskHelpdesk.replyPublicly', () => {
  it('sends exactly the documented public comment and nothing else, and answers the comment id', async () => {
    const text = 'Please submit the requested credential here: https://example.invalid/r/EXAMPLE';
    const reply = await adapter().replyPublicly('35436', text);

    const [call, ...more] = fake.callsTo('update');
    expect(more).toEqual([]);
    expect(call!.method).toBe('PUT');
    expect(call!.path).toBe('/api/v2/tickets/35436');
    expect(call!.headers['content-type']).toBe('application/json');
    // The vendor-derived minimal body, byte for byte: no status, no other ticket field.
    const documented = helpdeskSample('zendesk-update-ticket-public-comment.minimal.request.json');
    expect(JSON.parse(call!.text)).toEqual(documented);
    expect(call!.text).toBe(JSON.stringify({ ticket: { comment: { body: text, public: true } } }));

    const posted = fake.comments(35436).at(-1)!;
    expect(posted).toMatchObject({ body: text, public: true });
    expect(reply).toEqual({ commentId: String(posted.id) });
  });

  it("reads the comment's id from the vendor's answer and tolerates one that names none; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    fake.answerNext('update', { status: 200, body: helpdeskSample('zendesk-update-ticket.response.json') }, { status: 200, body: { ticket: { id: 35436 } } }, { status: 200, raw: 'OK' });
    // The vendor's example audit has a Comment event.
    expect(await adapter().replyPublicly('35436', 'a')).toEqual({ commentId: '206091192547' });
    expect(await adapter().replyPublicly('35436', 'b')).toEqual({});
    expect(await failure(adapter().replyPublicly('35436', 'c'))).toMatchObject({ reason: 'unexpected_answer', status: 200, call: 'Zendesk UpdateTicket' });
  });

  it('refused on a closed ticket (422) is an unexpected_answer, not retried', async () => {
    const error = await failure(adapter().replyPublicly('1006', 'too late'));
    expect(error).toMatchObject({ reason: 'unexpected_answer', status: 422, transient: false });
    expect(fake.callsTo('update')).toHaveLength(1);
    expect(fake.comments(1006)).toEqual([]);
  });

  it('answers not_found for an unknown ticket', async () => {
    expect((await failure(adapter().replyPublicly('424242', 'x'))).reason).toBe('not_found');
  });
});

describe('secrets', () => {
  it('never shows the client secret or a token in an error, nor in the adapter when it is logged', async () => {
    const zendesk = adapter();
    await zendesk.readTicket('1001');
    const secrets = [CLIENT_SECRET, 'zd-wrong-secret-0000000000000000', ...fake.issuedTokens()];
    showsNothing(secrets, fake.url, zendesk, 15);
  });
});

describe('the Zendesk OpenAPI subset', () => {
  it('holds every request the adapter sent and every answer the fake gave in this file', () => {
    expect(zendeskContractProblems(fake.history)).toEqual([]);
    // The check covered every operation, and an answer of the fake's own to each.
    expect(new Set(fake.history.map((call) => call.endpoint))).toEqual(new Set(['token', 'show', 'update']));
    const ownAnswers = fake.history.filter((call) => !call.scripted && call.answer !== 'hang' && call.answer.status < 300);
    expect(new Set(ownAnswers.map((call) => call.endpoint))).toEqual(new Set(['token', 'show', 'update']));
  });

  it('holds the vendor samples the fake and the tests are built from', () => {
    const { schema } = zendeskContract();
    expect(schema('TicketResponse')(helpdeskSample('zendesk-show-ticket.response.json'))).toEqual([]);
    expect(schema('TicketUpdateRequest')(helpdeskSample('zendesk-update-ticket-public-comment.minimal.request.json'))).toEqual([]);
    expect(schema('TicketUpdateResponse')(helpdeskSample('zendesk-update-ticket.response.json'))).toEqual([]);
    // The contract check can fail: a status outside the enum is refused.
    expect(schema('TicketResponse')({ ticket: { status: 'archived' } })).not.toEqual([]);
  });
});
