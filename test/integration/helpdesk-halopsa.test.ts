import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HALOPSA_CALLS, HALOPSA_SCOPE, HaloPsaHelpdesk, type HaloPsaConfig } from '../../lambdas/adapters/helpdesks/halopsa.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeHaloPsa, type FakeHaloPsa, type FakeHaloPsaOptions, type HaloPsaCall } from '../support/fake-halopsa.ts';
import { haloPsaContract, haloPsaContractProblems } from '../support/helpdesk-contracts.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';

/**
 * The HaloPSA adapter against a stateful fake Halo over real HTTP on loopback: state mapping (Halo's
 * closed flag, the instance's resolved status ids), the OAuth token's life (form-encoded, with the
 * tenant, fetched once, refreshed before expiry and after a 401), the failure reasons, the reply's
 * exact body, that no secret reaches an error, and that every request sent and every answer the fake
 * gave fits Halo's OpenAPI document (test/fixtures/helpdesk-apis/openapi).
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const readJson = (...path: string[]) => JSON.parse(readFileSync(join(FIXTURES, ...path), 'utf8')) as Record<string, any>;
/** The vendor-derived add-action body (an array, kept under `body` beside its `_source`). */
const ADD_ACTION_SAMPLE = readJson('helpdesk-apis', 'halopsa-add-action.request.json').body as Array<Record<string, unknown>>;
const WEBHOOK_SAMPLE = readJson('helpdesks', 'halopsa-webhook.json');

// Halo issues GUIDs as client ids, and secrets of two GUIDs.
const CLIENT_ID = '6f0d2c1e-8b3a-4d5f-9e7c-2a1b0c9d8e7f';
const CLIENT_SECRET = 'b7e4a1c9-3d2f-4e68-a0b5-9c8d7e6f5a41-0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f';
const WRONG_SECRET = 'halo-wrong-secret-000000000000000000000000';
const TENANT = 'acme';
const START = Date.parse('2026-11-26T09:00:00Z');
const TIMEOUT_MS = 400;
/** The instance's resolved status, as the common default install numbers it. */
const RESOLVED = 8;

let clock: FakeClock;
let fake: FakeHaloPsa;
/** Fakes a single test starts (another tenant, other grants): their calls join the contract check, their tokens the secret check. */
const otherFakes: FakeHaloPsa[] = [];
/** Every HelpdeskCallFailed a test saw, searched for secrets at the end. */
const { seen: seenErrors, failure } = helpdeskFailures();

const adapter = (overrides: Partial<HaloPsaConfig> & { timeoutMs?: number; url?: string } = {}) =>
  new HaloPsaHelpdesk(
    {
      url: overrides.url ?? fake.url,
      clientId: CLIENT_ID,
      clientSecret: overrides.clientSecret ?? CLIENT_SECRET,
      tenant: 'tenant' in overrides ? overrides.tenant : TENANT,
      resolvedStatusIds: overrides.resolvedStatusIds ?? [RESOLVED],
    },
    { clock, timeoutMs: overrides.timeoutMs ?? 5_000, allowLoopback: true },
  );

/** Another fake for one test, kept for the checks over the whole file. */
const anotherFake = async (options: Partial<FakeHaloPsaOptions>) => {
  const other = await startFakeHaloPsa({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => clock.now().getTime(), ...options });
  otherFakes.push(other);
  return other;
};

const statuses = (calls: HaloPsaCall[]) => calls.map((call) => (call.answer === 'hang' ? 'hang' : call.answer.status));

beforeAll(async () => {
  clock = new FakeClock(START);
  fake = await startFakeHaloPsa({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tenant: TENANT, now: () => clock.now().getTime() });
  fake.setTicket(1001, { statusId: 1 });
  fake.setTicket(1002, { statusId: 2 });
  fake.setTicket(1003, { statusId: RESOLVED });
  fake.setTicket(1004, { statusId: 9, closed: true });
  // An instance-specific closed status: Halo's flag says closed whatever the status is called.
  fake.setTicket(1005, { statusId: 21, closed: true });
  fake.setTicket(Number(WEBHOOK_SAMPLE.ticket.id), { statusId: 2 });
});
afterAll(async () => {
  await Promise.all([fake, ...otherFakes].map((each) => each.close()));
});
beforeEach(() => {
  clock.set(START);
  fake.resetCalls();
});

describe('HaloPsaHelpdesk.readTicket', () => {
  it.each([
    ['1001', 'status 1', 'open'],
    ['1002', 'status 2', 'open'],
    ['1003', 'status 8', 'resolved'],
    ['1004', 'status 9 (closed)', 'closed'],
    ['1005', 'status 21 (closed)', 'closed'],
  ] as const)('reads ticket %s as %s → %s', async (id, vendorStatus, state) => {
    const ticket = await adapter().readTicket(id);
    expect(ticket).toEqual({ externalId: id, vendorStatus, state, readAt: clock.now().toISOString() });
    expect(fake.callsTo('ticket').map((call) => [call.method, call.path])).toEqual([['GET', `/api/Tickets/${id}`]]);
  });

  it('counts a status as resolved only when the instance lists it', async () => {
    expect(await adapter({ resolvedStatusIds: [] }).readTicket('1003')).toMatchObject({ vendorStatus: 'status 8', state: 'open' });
    expect(await adapter({ resolvedStatusIds: [2, 7] }).readTicket('1002')).toMatchObject({ vendorStatus: 'status 2', state: 'resolved' });
  });

  it('reads the ticket afresh each time, as Halo moves it on', async () => {
    const halo = adapter();
    fake.setTicket(2001, { statusId: 2 });
    expect((await halo.readTicket('2001')).state).toBe('open');
    fake.setTicket(2001, { statusId: RESOLVED });
    expect((await halo.readTicket('2001')).state).toBe('resolved');
    fake.setTicket(2001, { statusId: 9, closed: true });
    expect((await halo.readTicket('2001')).state).toBe('closed');
    expect(fake.callsTo('ticket')).toHaveLength(3);
  });

  it('reads a ticket carrying fields the snapshot forbids, as live instances send', async () => {
    // The webhook sample's ticket with fields a later Halo adds: Faults sets additionalProperties
    // false, so the schema refuses this answer, and the adapter must read it all the same.
    const answer = { ...WEBHOOK_SAMPLE.ticket, status_id: RESOLVED, hasbeenclosed: false, added_later: { nested: [1, 2, 3] }, _ai_summary: 'x' };
    expect(haloPsaContract().schema('Faults')(answer)).not.toEqual([]);
    fake.answerNext('ticket', { status: 200, body: answer });
    expect(await adapter().readTicket('1234')).toMatchObject({ externalId: '1234', vendorStatus: 'status 8', state: 'resolved' });
  });

  it('calls an answer it cannot place an unexpected_answer: a field missing, null or of another type, another ticket, not JSON', async () => {
    const halo = adapter();
    await halo.readTicket('1001'); // the token first
    const ticket = (fake.callsTo('ticket')[0]!.answer as { body: Record<string, unknown> }).body;
    const { id: _i, ...withoutId } = ticket;
    const { hasbeenclosed: _h, ...withoutClosed } = ticket;
    const { status_id: _s, ...withoutStatus } = ticket;
    const odd: Array<Parameters<FakeHaloPsa['answerNext']>[1]> = [
      { status: 200, body: withoutClosed },
      { status: 200, body: withoutStatus },
      // Nullable in the schema, but a null says nothing about whether the ticket is closed.
      { status: 200, body: { ...ticket, hasbeenclosed: null } },
      { status: 200, body: { ...ticket, status_id: null } },
      { status: 200, body: { ...ticket, hasbeenclosed: 'true' } },
      { status: 200, body: { ...ticket, hasbeenclosed: 1 } },
      { status: 200, body: { ...ticket, status_id: '9' } },
      { status: 200, body: { ...ticket, status_id: 9.5 } },
      // Another ticket than the one asked for, or one that does not say which, must not verify this one.
      { status: 200, body: { ...ticket, id: 99, hasbeenclosed: true } },
      { status: 200, body: { ...ticket, id: '1001' } },
      { status: 200, body: { ...withoutId, hasbeenclosed: true } },
      { status: 200, body: [ticket] },
      { status: 200, body: { tickets: [ticket] } },
      { status: 200, raw: '<html><body>Maintenance</body></html>' },
    ];
    fake.answerNext('ticket', ...odd);
    for (let i = 0; i < odd.length; i++) {
      const error = await failure(halo.readTicket('1001'));
      expect(error).toMatchObject({ reason: 'unexpected_answer', status: 200, transient: false });
    }
    expect(fake.callsTo('ticket')).toHaveLength(odd.length + 1);
  });

  it('answers not_found for an unknown ticket, and for an id that cannot be a Halo ticket without calling', async () => {
    const halo = adapter();
    expect(await failure(halo.readTicket('424242'))).toMatchObject({ reason: 'not_found', status: 404, transient: false });
    expect(fake.callsTo('ticket')).toHaveLength(1);
    // 2147483648 is past the int32 of the path parameter.
    for (const id of ['../Actions', '1234/../1', 'HALO-1234', '1234.0', '1e3', '0x10', '+1234', '', ' ', '0', '-5', '12 34', '2147483648', '99999999999']) {
      expect(await failure(halo.readTicket(id))).toMatchObject({ reason: 'not_found', call: HALOPSA_CALLS.readTicket });
    }
    expect(fake.callsTo('ticket')).toHaveLength(1);
    expect(await halo.readTicket(' 1001 ')).toMatchObject({ externalId: '1001' });
  });
});

describe('the configuration', () => {
  it('refuses an address that is not an https origin, and resolved ids that are not status ids', () => {
    const config = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
    expect(() => new HaloPsaHelpdesk({ ...config, url: 'http://acme.halopsa.com' })).toThrow(/https/);
    expect(() => new HaloPsaHelpdesk({ ...config, url: 'https://acme.halopsa.com/api' })).toThrow(/site address only/);
    expect(() => new HaloPsaHelpdesk({ ...config, url: 'https://acme.halopsa.com?tenant=acme' })).toThrow(/site address only/);
    expect(() => new HaloPsaHelpdesk({ ...config, url: fake.url })).toThrow(/https/);
    for (const ids of [[0], [-8], [8.5], [Number.NaN]]) {
      expect(() => new HaloPsaHelpdesk({ ...config, url: 'https://acme.halopsa.com', resolvedStatusIds: ids })).toThrow(TypeError);
    }
    expect(() => new HaloPsaHelpdesk({ ...config, url: 'https://acme.halopsa.com/', tenant: TENANT, resolvedStatusIds: [8] })).not.toThrow();
  });
});

describe('the OAuth token', () => {
  it('is asked for form-encoded as Halo documents it, with the tenant, once, and reused for reads and replies', async () => {
    const halo = adapter();
    // Calls that start together share the one token request.
    await Promise.all([halo.readTicket('1001'), halo.readTicket('1002'), halo.readTicket('1003')]);
    await halo.replyPublicly('1234', 'Please use this link.');
    await halo.readTicket('1004');

    const [tokenCall, ...more] = fake.callsTo('token');
    expect(more).toEqual([]);
    expect(tokenCall!.method).toBe('POST');
    expect(tokenCall!.path).toBe(`/auth/token?tenant=${TENANT}`);
    expect(tokenCall!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(tokenCall!.text).toBe(
      `grant_type=client_credentials&client_id=${CLIENT_ID}&client_secret=${CLIENT_SECRET}&scope=read%3Atickets+edit%3Atickets`,
    );
    expect(HALOPSA_SCOPE).toBe('read:tickets edit:tickets');
    const token = (tokenCall!.answer as { body: { access_token: string } }).body.access_token;
    const resourceCalls = fake.calls.filter((call) => call.endpoint !== 'token');
    expect(resourceCalls).toHaveLength(5);
    for (const call of resourceCalls) expect(call.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('names no tenant for an instance without one, and encodes an odd one', async () => {
    const onPremise = await anotherFake({});
    onPremise.setTicket(7, { statusId: 2 });
    for (const tenant of [undefined, '', '  ']) {
      await adapter({ url: onPremise.url, tenant }).readTicket('7');
    }
    expect(onPremise.callsTo('token').map((call) => call.path)).toEqual(['/auth/token', '/auth/token', '/auth/token']);

    // A tenant cannot add a parameter or reach another path: it is one encoded query value.
    const odd = await failure(adapter({ tenant: 'acme&scope=all' }).readTicket('1001'));
    expect(odd).toMatchObject({ reason: 'unauthorized', status: 400 });
    expect(fake.callsTo('token').map((call) => call.path)).toEqual(['/auth/token?tenant=acme%26scope%3Dall']);
  });

  it('is refreshed shortly before it expires, not after', async () => {
    const halo = adapter();
    await halo.readTicket('1001');
    clock.advance((3_600 - 61) * 1000);
    await halo.readTicket('1001');
    expect(fake.callsTo('token')).toHaveLength(1);
    clock.advance(2_000);
    await halo.readTicket('1001');
    expect(fake.callsTo('token')).toHaveLength(2);
    // The refresh happened before the fake would refuse the old token: no 401 was ever answered.
    expect(statuses(fake.calls)).not.toContain(401);
  });

  it('is replaced after a 401 and the call made once more, for a read and for a reply', async () => {
    const halo = adapter();
    await halo.readTicket('1001');
    fake.revokeTokens();
    expect(await halo.readTicket('1004')).toMatchObject({ state: 'closed' });
    expect(fake.callsTo('token')).toHaveLength(2);
    expect(statuses(fake.callsTo('ticket'))).toEqual([200, 401, 200]);

    fake.revokeTokens();
    const before = fake.actions(1234).length;
    await halo.replyPublicly('1234', 'Link after a revoked token.');
    expect(statuses(fake.callsTo('actions'))).toEqual([401, 201]);
    // Posted exactly once: the refused POST did nothing.
    expect(fake.actions(1234).slice(before).map((action) => action.note)).toEqual(['Link after a revoked token.']);
  });

  it('is not retried more than once: a second 401 is unauthorized', async () => {
    const halo = adapter();
    fake.answerNext('ticket', { status: 401 }, { status: 401 });
    expect(await failure(halo.readTicket('1001'))).toMatchObject({ reason: 'unauthorized', status: 401, transient: false });
    expect(fake.callsTo('ticket')).toHaveLength(2);
    expect(fake.callsTo('token')).toHaveLength(2);
  });

  it('refused by the token endpoint (a wrong secret or tenant) is unauthorized, and no ticket call is made', async () => {
    const wrongSecret = await failure(adapter({ clientSecret: WRONG_SECRET }).readTicket('1001'));
    expect(wrongSecret).toMatchObject({ reason: 'unauthorized', status: 400, transient: false });
    expect(wrongSecret.message).toContain(HALOPSA_CALLS.token);
    expect(await failure(adapter({ tenant: 'globex' }).readTicket('1001'))).toMatchObject({ reason: 'unauthorized', status: 400 });
    expect(await failure(adapter({ tenant: undefined }).replyPublicly('1234', 'x'))).toMatchObject({ reason: 'unauthorized', status: 400 });
    expect(statuses(fake.callsTo('token'))).toEqual([400, 400, 400]);
    expect(fake.calls.filter((call) => call.endpoint !== 'token')).toEqual([]);
    expect(fake.actions(1234).map((action) => action.note)).not.toContain('x');
  });

  it('is refused when the API application was not granted both scopes: unauthorized, no ticket call', async () => {
    const readOnly = await anotherFake({ tenant: TENANT, grantedScopes: ['read:tickets'] });
    readOnly.setTicket(7, { statusId: 2 });
    const refused = await failure(adapter({ url: readOnly.url }).readTicket('7'));
    expect(refused).toMatchObject({ reason: 'unauthorized', status: 400 });
    expect((readOnly.callsTo('token')[0]!.answer as { body: unknown }).body).toEqual({ error: 'invalid_scope' });
    expect(readOnly.callsTo('ticket')).toEqual([]);
  });

  it('ends a hanging token request in timeout, and leaves a token endpoint 503 a retryable unavailable', async () => {
    fake.answerNext('token', 'hang');
    expect((await failure(adapter({ timeoutMs: TIMEOUT_MS }).readTicket('1001'))).reason).toBe('timeout');
    fake.answerNext('token', { status: 503, headers: { 'Retry-After': '20' }, raw: 'Service Unavailable' });
    expect(await failure(adapter().readTicket('1001'))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 20, transient: true });
    expect(fake.callsTo('ticket')).toEqual([]);
  });
});

describe('failures', () => {
  it('classifies 403 as unauthorized, without a second attempt', async () => {
    fake.answerNext('ticket', { status: 403 });
    expect(await failure(adapter().readTicket('1001'))).toMatchObject({ reason: 'unauthorized', status: 403, transient: false });
    expect(fake.callsTo('ticket')).toHaveLength(1);
    expect(fake.callsTo('token')).toHaveLength(1);
  });

  it('classifies 429 as rate_limited with Retry-After in seconds or as an HTTP date, and leaves the retry to the caller', async () => {
    const halo = adapter();
    fake.answerNext('ticket', { status: 429, headers: { 'Retry-After': '93' } });
    expect(await failure(halo.readTicket('1001'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 93, transient: true });
    fake.answerNext('actions', { status: 429, headers: { 'Retry-After': new Date(clock.now().getTime() + 120_000).toUTCString() } });
    expect(await failure(halo.replyPublicly('1234', 'x'))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 120 });
    fake.answerNext('ticket', { status: 429 });
    const bare = await failure(halo.readTicket('1001'));
    expect(bare.reason).toBe('rate_limited');
    expect(bare.retryAfterSeconds).toBeUndefined();
    expect(fake.callsTo('ticket')).toHaveLength(2);
    expect(fake.callsTo('actions')).toHaveLength(1);
    expect(fake.actions(1234).map((action) => action.note)).not.toContain('x');
  });

  it('classifies 503 and 500 as unavailable, with Retry-After when given, and does not retry', async () => {
    fake.answerNext('ticket', { status: 503, headers: { 'Retry-After': '30' }, raw: 'Service Unavailable' }, { status: 500, body: { message: 'Internal Server Error' } });
    expect(await failure(adapter().readTicket('1001'))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 30, transient: true });
    const plain = await failure(adapter().readTicket('1001'));
    expect(plain).toMatchObject({ reason: 'unavailable', status: 500 });
    expect(plain.retryAfterSeconds).toBeUndefined();
    expect(fake.callsTo('ticket')).toHaveLength(2);
  });

  it('ends a hanging call in timeout within the configured timeout', async () => {
    const halo = adapter({ timeoutMs: TIMEOUT_MS });
    await halo.readTicket('1001'); // the token first, so only the read hangs
    fake.answerNext('ticket', 'hang');
    const started = performance.now();
    const error = await failure(halo.readTicket('1001'));
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ reason: 'timeout', transient: true });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
    fake.answerNext('actions', 'hang');
    expect((await failure(halo.replyPublicly('1234', 'x'))).reason).toBe('timeout');
  });
});

describe('HaloPsaHelpdesk.replyPublicly', () => {
  it('sends exactly one action, the note shown to the user and nothing else, once, and answers its id', async () => {
    const text = 'Please submit the requested credential here: https://example.invalid/r/EXAMPLE?a=1&b=2';
    const reply = await adapter().replyPublicly('1234', text);

    const [call, ...more] = fake.callsTo('actions');
    expect(more).toEqual([]);
    expect(call!.method).toBe('POST');
    expect(call!.path).toBe('/api/Actions');
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.text).toBe(JSON.stringify([{ ticket_id: 1234, note: text, hiddenfromuser: false }]));
    // The vendor-derived body, less what the adapter leaves out on purpose: outcome (named per
    // instance, not required) and sendemail (the instance's own rules decide).
    const { outcome: _o, sendemail: _s, ...documented } = ADD_ACTION_SAMPLE[0]!;
    const [sent] = JSON.parse(call!.text) as Array<Record<string, unknown>>;
    expect(Object.keys(sent!)).toEqual(Object.keys(documented));
    expect(sent).toEqual({ ...documented, note: text });

    const posted = fake.actions(1234).at(-1)!;
    expect(posted).toEqual({ id: posted.id, note: text, hiddenfromuser: false });
    expect(fake.actions(1234).filter((action) => action.note === text)).toHaveLength(1);
    expect(reply).toEqual({ commentId: String(posted.id) });
  });

  it("tolerates an answer that names no action and reads an array of one; a 2xx that is not JSON (a web page where the API's answer should be) proves nothing: an unexpected_answer", async () => {
    fake.answerNext(
      'actions',
      { status: 201, body: { ...WEBHOOK_SAMPLE.action, id: 77 } },
      { status: 201, body: [{ id: 78, ticket_id: 1234 }] },
      { status: 201, body: { ticket_id: 1234 } },
      { status: 201, body: { id: 0 } },
      { status: 201, raw: '' },
      { status: 200, raw: 'OK' },
    );
    expect(await adapter().replyPublicly('1234', 'a')).toEqual({ commentId: '77' });
    expect(await adapter().replyPublicly('1234', 'b')).toEqual({ commentId: '78' });
    for (const note of ['c', 'd']) expect(await adapter().replyPublicly('1234', note)).toEqual({});
    for (const note of ['e', 'f']) expect(await failure(adapter().replyPublicly('1234', note))).toMatchObject({ reason: 'unexpected_answer', call: HALOPSA_CALLS.addAction });
    expect(fake.callsTo('actions')).toHaveLength(6);
  });

  it('refused for a ticket Halo does not have (400: the document declares no 404 here) is an unexpected_answer, not retried', async () => {
    const error = await failure(adapter().replyPublicly('424242', 'nowhere'));
    expect(error).toMatchObject({ reason: 'unexpected_answer', status: 400, transient: false });
    expect(fake.callsTo('actions')).toHaveLength(1);
  });

  it('answers not_found for an id that cannot be a Halo ticket, without calling', async () => {
    for (const id of ['../Tickets/1', 'HALO-1234', '0', '2147483648']) {
      expect(await failure(adapter().replyPublicly(id, 'x'))).toMatchObject({ reason: 'not_found', call: HALOPSA_CALLS.addAction });
    }
    expect(fake.calls).toEqual([]);
  });
});

describe('secrets', () => {
  it('never shows the client secret or a token in an error, nor in the adapter when it is logged', async () => {
    const halo = adapter();
    await halo.readTicket('1001');
    const secrets = [CLIENT_SECRET, WRONG_SECRET, ...[fake, ...otherFakes].flatMap((each) => each.issuedTokens())];
    expect(fake.issuedTokens().length).toBeGreaterThan(10);
    expect(seenErrors.length).toBeGreaterThan(40);
    for (const error of seenErrors) {
      const shown = [String(error), (error as Error).stack ?? '', inspect(error, { depth: 5 }), JSON.stringify(error)].join('\n');
      for (const secret of secrets) expect(shown).not.toContain(secret);
      for (const each of [fake, ...otherFakes]) expect(shown).not.toContain(each.url);
      expect(shown).not.toContain(TENANT);
    }
    const logged = [inspect(halo, { depth: 10, showHidden: true }), JSON.stringify(halo)].join('\n');
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });
});

describe('the HaloPSA OpenAPI subset', () => {
  it('names the calls, declares bearer auth and an int32 ticket id, and its schemas refuse what Halo would not send', () => {
    const { document, actionRequest, answers } = haloPsaContract();
    const getTicket = document.paths['/Tickets/{id}'].get;
    const postActions = document.paths['/Actions'].post;
    expect([getTicket.operationId, postActions.operationId]).toEqual([HALOPSA_CALLS.readTicket, HALOPSA_CALLS.addAction].map((name) => name.replace('HaloPSA ', '')));
    // Halo's server is /api; the token URL is outside the document, which declares only bearer auth.
    expect(document.servers).toEqual([{ url: '/api' }]);
    expect(document.components.securitySchemes.Bearer).toMatchObject({ type: 'http', scheme: 'Bearer' });
    expect(Object.keys(document.paths).some((path) => path.includes('auth'))).toBe(false);
    const idParameter = getTicket.parameters.find((p: { name: string; in: string }) => p.name === 'id' && p.in === 'path');
    expect(idParameter.schema).toEqual({ type: 'integer', format: 'int32' });
    // The pointers reach the schemas: they refuse what Halo would not send.
    expect(answers.ticket({ id: 1234, hasbeenclosed: 'yes' })).not.toEqual([]);
    expect(answers.actions({ id: 'five' })).not.toEqual([]);
    expect(actionRequest([{ ticket_id: 1234, note: 'x', public: true }])).not.toEqual([]);
  });

  it('holds every request the adapter sent and every answer the fakes gave in this file', () => {
    const history = [fake, ...otherFakes].flatMap((each) => each.history);
    expect(haloPsaContractProblems(history, { clientId: CLIENT_ID })).toEqual([]);
    // The check covered every operation, and an answer of the fakes' own to each.
    expect(new Set(history.map((call) => call.endpoint))).toEqual(new Set(['token', 'ticket', 'actions']));
    const ownAnswers = history.filter((call) => !call.scripted && call.answer !== 'hang' && call.answer.status < 300);
    expect(new Set(ownAnswers.map((call) => call.endpoint))).toEqual(new Set(['token', 'ticket', 'actions']));
  });

  it('holds the vendor samples the fake and the tests are built from', () => {
    const { actionRequest, schema } = haloPsaContract();
    expect(actionRequest(ADD_ACTION_SAMPLE)).toEqual([]);
    // What the adapter sends is the sample less two optional fields: it fits too.
    expect(actionRequest([{ ticket_id: 1234, note: 'x', hiddenfromuser: false }])).toEqual([]);
    // The webhook sample's ticket and action are the vendor's Faults and Actions, trimmed.
    expect(schema('Faults')(WEBHOOK_SAMPLE.ticket)).toEqual([]);
    expect(schema('Actions')(WEBHOOK_SAMPLE.action)).toEqual([]);
    // The contract check can fail: a wrong type, a field Halo does not have, a body that is not an array.
    expect(actionRequest([{ ticket_id: '1234', note: 'x' }])).not.toEqual([]);
    expect(actionRequest([{ ticket_id: 1234, note: 'x', public: true }])).not.toEqual([]);
    expect(actionRequest({ ticket_id: 1234, note: 'x' })).not.toEqual([]);
    expect(schema('Faults')({ id: 1234, hasbeenclosed: 'yes' })).not.toEqual([]);
  });
});
