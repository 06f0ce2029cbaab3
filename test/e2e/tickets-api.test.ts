/**
 * POST /v1/tickets/{ref}/status over real HTTP (SPEC.md "POST /tickets/{ref}/status", "Errors",
 * "Limits"): the exact 202 Ticket status acceptance, validation of the path and body, 401/403 as on
 * every endpoint, matching by reference and by linked external id, `integration_id` narrowing,
 * client-scoped keys, idempotency, rate headers, and the `ticket.status_received` audit entry that
 * names the API key. What a status destroys is covered by test/integration/close-to-purge.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { auditEntries, expectCreationResult, expectError, expectKeys, type RequestObject } from '../support/shapes.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

const ACCEPTANCE_FIELDS = ['accepted', 'ticket_ref', 'status', 'matched', 'verified', 'note'];
const NO_MATCH_NOTE = "No request within this key's scope quotes or links this ticket, so nothing changed.";

let service: TestService;
let org: TestOrganisation;
/** A key with only `tickets:write`, named as the audit trail must show it. */
let ticketsKey: string;
let seq = 0;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Tickets API Org' });
  ticketsKey = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Helpdesk sync' });
});
afterAll(() => service?.stop());

const ref = (prefix = 'INC') => `${prefix}-${Date.now()}-${++seq}`;

const create = async (extra: Record<string, unknown> = {}, key = org.key): Promise<RequestObject> => {
  const answer = await service.call('POST', '/requests', {
    key,
    body: { subject_name: 'Jane Doe', justification: 'Needs the firewall admin password', recipients: [org.owner.email], ...extra },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};

const markStatus = (
  ticketRef: string,
  body: unknown,
  options: { key?: string | null; headers?: Record<string, string>; rawBody?: string } = {},
) =>
  service.call('POST', `/tickets/${encodeURIComponent(ticketRef)}/status`, {
    key: options.key === undefined ? ticketsKey : options.key,
    body: options.rawBody === undefined ? body : undefined,
    rawBody: options.rawBody,
    headers: options.rawBody === undefined ? options.headers : { 'Content-Type': 'application/json', ...options.headers },
  });

const read = async (id: string) => (await service.call('GET', `/requests/${id}`, { key: org.key })).body as RequestObject;

const statusEntries = async (orgId = org.orgId) => (await auditEntries(service, orgId)).filter((entry) => entry.type === 'ticket.status_received');

const connect = async (name: string, orgId = org.orgId) =>
  (await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId, name, recipe: null })).integration.id;

/** The acceptance body, field by field (SPEC.md "Ticket status acceptance"). */
const expectAcceptance = (answer: ApiAnswer) => {
  expect(answer.status, answer.text).toBe(202);
  expect(answer.headers.get('content-type') ?? '').toContain('application/json');
  expectKeys(answer.body, ACCEPTANCE_FIELDS, 'acceptance');
  expectKeys(answer.body.matched, ['ticket_links', 'requests', 'shares'], 'acceptance.matched');
  expect(answer.body.accepted).toBe(true);
  expect(answer.body.verified).toBe(false);
  expect(Number.isInteger(answer.body.matched.ticket_links)).toBe(true);
  expect(typeof answer.body.note).toBe('string');
  expect(answer.body.note.length).toBeGreaterThan(0);
  return answer.body as { accepted: true; ticket_ref: string; status: string; matched: { ticket_links: number; requests: string[]; shares: string[] }; verified: false; note: string };
};

describe('202 Ticket status acceptance', () => {
  it('has exactly the specified shape and records the status on the quoting request', async () => {
    const ticket = ref();
    const request = await create({ ticket_ref: ticket });
    const answer = await markStatus(ticket, { status: 'pending' });
    const body = expectAcceptance(answer);
    expect(body).toEqual({
      accepted: true,
      ticket_ref: ticket,
      status: 'pending',
      matched: { ticket_links: 1, requests: [request.id], shares: [] },
      verified: false,
      note: 'Recorded the status on 1 request.',
    });
    expect(answer.headers.get('Cache-Control')).toBe('no-store');
    expect((await read(request.id)).ticket).toMatchObject({ ref: ticket, status: 'pending' });
  });

  it('an unknown ticket is accepted with nothing matched; integration_id null is allowed', async () => {
    const ticket = ref('NOPE');
    const answer = await markStatus(ticket, { status: 'closed', integration_id: null });
    expect(expectAcceptance(answer)).toEqual({
      accepted: true,
      ticket_ref: ticket,
      status: 'closed',
      matched: { ticket_links: 0, requests: [], shares: [] },
      verified: false,
      note: NO_MATCH_NOTE,
    });
  });
});

describe('422 validation_failed', () => {
  it('ref of 120 characters is accepted and matched; 121 answers errors.ref', async () => {
    const base = ref('LONG');
    const ticket120 = base + 'x'.repeat(120 - base.length);
    expect(ticket120).toHaveLength(120);
    const request = await create({ ticket_ref: ticket120 });
    const ok = expectAcceptance(await markStatus(ticket120, { status: 'open' }));
    expect(ok.ticket_ref).toBe(ticket120);
    expect(ok.matched).toEqual({ ticket_links: 1, requests: [request.id], shares: [] });

    const before = (await statusEntries()).length;
    expectError(await markStatus(`${ticket120}y`, { status: 'open' }), 422, 'validation_failed', ['ref']);
    expect(await statusEntries()).toHaveLength(before);
  });

  it('the 120-character limit counts characters as POST /requests does: a ref of 120 characters outside the BMP is matched', async () => {
    // POST /requests takes this ticket_ref (120 characters, 240 UTF-16 code units); SPEC.md gives the
    // same limit, "at most 120 characters (filter, path and body)", so the path must take it too.
    const ticket = `${'\u{1F3AB}'.repeat(119)}${String.fromCharCode(65 + (++seq % 26))}`;
    expect([...ticket]).toHaveLength(120);
    const request = await create({ ticket_ref: ticket });
    expect(request.ticket?.ref).toBe(ticket);
    const answer = await markStatus(ticket, { status: 'open' });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.matched).toEqual({ ticket_links: 1, requests: [request.id], shares: [] });
    // 121 characters is over the limit either way.
    expectError(await markStatus(`${ticket}x`, { status: 'open' }), 422, 'validation_failed', ['ref']);
  });

  it('status missing or not one of open, pending, resolved, closed answers errors.status', async () => {
    const ticket = ref();
    expectError(await markStatus(ticket, {}), 422, 'validation_failed', ['status']);
    expectError(await markStatus(ticket, undefined, { rawBody: '' }), 422, 'validation_failed', ['status']);
    for (const status of ['done', 'unknown', 'Closed', 'CLOSED', '', 4, null, ['closed']]) {
      expectError(await markStatus(ticket, { status }), 422, 'validation_failed', ['status']);
    }
  });

  it('an unknown body field is refused', async () => {
    const ticket = ref();
    const request = await create({ ticket_ref: ticket });
    const answer = await markStatus(ticket, { status: 'closed', ticket_ref: ticket });
    const body = expectError(answer, 422, 'validation_failed');
    expect(Object.keys(body.errors)).toEqual(['ticket_ref']);
    expect((await read(request.id)).ticket?.status).toBeNull();
  });

  it('integration_id that is not a ULID, or names no integration of the organisation, answers errors.integration_id', async () => {
    const ticket = ref();
    for (const integration_id of ['not-a-ulid', newId().toUpperCase(), 42, '']) {
      expectError(await markStatus(ticket, { status: 'closed', integration_id }), 422, 'validation_failed', ['integration_id']);
    }
    expectError(await markStatus(ticket, { status: 'closed', integration_id: newId() }), 422, 'validation_failed', ['integration_id']);
    // Another organisation's integration is as unknown as a made-up one.
    const other = await service.createOrganisation({ name: 'Other Org' });
    const foreign = await connect('Foreign desk', other.orgId);
    expectError(await markStatus(ticket, { status: 'closed', integration_id: foreign }), 422, 'validation_failed', ['integration_id']);
  });
});

describe('authentication and authorisation', () => {
  it('401 unauthenticated without a key or with an unknown one', async () => {
    const ticket = ref();
    expectError(await markStatus(ticket, { status: 'closed' }, { key: null }), 401, 'unauthenticated');
    expectError(await markStatus(ticket, { status: 'closed' }, { key: 'not-a-key' }), 401, 'unauthenticated');
  });

  it('403 forbidden for a key without tickets:write, and nothing is recorded', async () => {
    const ticket = ref();
    const request = await create({ ticket_ref: ticket });
    const without = await service.createKey(org.orgId, { scopes: ['requests:read', 'requests:write', 'events:read', 'webhooks:write'] });
    const before = (await statusEntries()).length;
    expectError(await markStatus(ticket, { status: 'closed' }, { key: without }), 403, 'forbidden');
    expect(await statusEntries()).toHaveLength(before);
    expect((await read(request.id)).ticket?.status).toBeNull();
  });

  it('403 plan_required on the Free plan', async () => {
    const free = await service.createOrganisation({ plan: 'free', name: 'Free Org' });
    const key = await service.createKey(free.orgId, { scopes: ['tickets:write'] });
    expectError(await markStatus(ref(), { status: 'closed' }, { key }), 403, 'plan_required');
    expectError(await markStatus(ref(), { status: 'closed' }, { key: free.key }), 403, 'plan_required');
  });
});

describe('matching', () => {
  it('matches a request by its linked ticket_external_id, and a quoting one by its ref, in one call', async () => {
    const integrationId = await connect('Linked desk');
    const external = `${Date.now()}${++seq}`;
    const linked = await create({ ticket_integration_id: integrationId, ticket_external_id: external, ticket_ref: ref('OTHER') });
    const quoting = await create({ ticket_ref: external });
    const body = expectAcceptance(await markStatus(external, { status: 'resolved' }));
    expect(body.matched.ticket_links).toBe(2);
    expect([...body.matched.requests].sort()).toEqual([linked.id, quoting.id].sort());
    expect((await read(linked.id)).ticket).toMatchObject({ external_id: external, integration_id: integrationId, status: 'resolved' });
    expect((await read(quoting.id)).ticket).toMatchObject({ ref: external, status: 'resolved' });
    // The match is exact: other capitals or a prefix are another ticket.
    expect(expectAcceptance(await markStatus(`#${external}`, { status: 'open' })).matched.ticket_links).toBe(0);
  });

  it('a ticket named like a built-in property (constructor, __proto__, toString) is a ticket like any other', async () => {
    const integrationId = await connect('Property desk');
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      // Quoted and linked under the same value: one index item notes both kinds.
      const linked = await create({ ticket_integration_id: integrationId, ticket_external_id: name, ticket_ref: name });
      const body = expectAcceptance(await markStatus(name, { status: 'pending' }));
      expect(body.matched.requests, name).toEqual([linked.id]);
      expect((await read(linked.id)).ticket, name).toMatchObject({ ref: name, external_id: name, status: 'pending' });
    }
  });

  it('matching is exact: other capitals and a prefix match nothing', async () => {
    const ticket = ref('Case');
    await create({ ticket_ref: ticket });
    for (const other of [ticket.toUpperCase(), ticket.toLowerCase(), `#${ticket}`, ticket.slice(0, -1)]) {
      expect(expectAcceptance(await markStatus(other, { status: 'open' })).matched, other).toEqual({ ticket_links: 0, requests: [], shares: [] });
    }
  });

  it('integration_id narrows to requests linked through that integration', async () => {
    const a = await connect('Desk A');
    const b = await connect('Desk B');
    const external = `${Date.now()}${++seq}`;
    const linkedA = await create({ ticket_integration_id: a, ticket_external_id: external });

    const throughB = expectAcceptance(await markStatus(external, { status: 'pending', integration_id: b }));
    expect(throughB.matched).toEqual({ ticket_links: 0, requests: [], shares: [] });
    expect((await read(linkedA.id)).ticket?.status).toBeNull();

    const throughA = expectAcceptance(await markStatus(external, { status: 'pending', integration_id: a }));
    expect(throughA.matched).toEqual({ ticket_links: 1, requests: [linkedA.id], shares: [] });
    expect((await read(linkedA.id)).ticket?.status).toBe('pending');
  });

  it('with integration_id, a request that only quotes the ref is not matched', async () => {
    const a = await connect('Desk Quote');
    const ticket = ref();
    const quoting = await create({ ticket_ref: ticket });
    const narrowed = expectAcceptance(await markStatus(ticket, { status: 'open', integration_id: a }));
    expect(narrowed.matched).toEqual({ ticket_links: 0, requests: [], shares: [] });
    expect(narrowed.note).toBe(NO_MATCH_NOTE);
    expect((await read(quoting.id)).ticket?.status).toBeNull();
    // Without integration_id it is matched.
    expect(expectAcceptance(await markStatus(ticket, { status: 'open' })).matched).toEqual({ ticket_links: 1, requests: [quoting.id], shares: [] });
  });

  it("a client-scoped key matches only its client's requests; ticket_links counts only those", async () => {
    const clientA = await service.admin.createClient(org.orgId, 'Client A');
    const clientB = await service.admin.createClient(org.orgId, 'Client B');
    const ticket = ref('SHARED');
    const ofA = await create({ ticket_ref: ticket, client_id: clientA.id });
    const ofB = await create({ ticket_ref: ticket, client_id: clientB.id });
    const ofDefault = await create({ ticket_ref: ticket });
    const keyA = await service.createKey(org.orgId, { scopes: ['tickets:write'], clientId: clientA.id, name: 'Client A sync' });

    const scoped = expectAcceptance(await markStatus(ticket, { status: 'pending' }, { key: keyA }));
    expect(scoped.matched).toEqual({ ticket_links: 1, requests: [ofA.id], shares: [] });
    expect((await read(ofA.id)).ticket?.status).toBe('pending');
    expect((await read(ofB.id)).ticket?.status).toBeNull();
    expect((await read(ofDefault.id)).ticket?.status).toBeNull();

    const keyB = await service.createKey(org.orgId, { scopes: ['tickets:write'], clientId: clientB.id });
    const otherTicket = ref('ONLY-A');
    await create({ ticket_ref: otherTicket, client_id: clientA.id });
    const none = expectAcceptance(await markStatus(otherTicket, { status: 'open' }, { key: keyB }));
    expect(none.matched).toEqual({ ticket_links: 0, requests: [], shares: [] });
    expect(none.note).toBe(NO_MATCH_NOTE);

    // The organisation-wide key matches all three.
    const all = expectAcceptance(await markStatus(ticket, { status: 'open' }));
    expect(all.matched.ticket_links).toBe(3);
    expect([...all.matched.requests].sort()).toEqual([ofA.id, ofB.id, ofDefault.id].sort());
  });
});

describe('idempotency', () => {
  it('the same key and body replays the 202 with Idempotency-Replayed: true and no second audit entry', async () => {
    const ticket = ref();
    const request = await create({ ticket_ref: ticket });
    const idempotencyKey = `ticket-${newId()}`;
    const headers = { 'Idempotency-Key': idempotencyKey };
    const first = await markStatus(ticket, { status: 'pending' }, { headers });
    expectAcceptance(first);
    expect(first.headers.get('Idempotency-Replayed')).toBeNull();
    const entriesAfterFirst = (await statusEntries()).filter((entry) => entry.requestId === request.id);
    expect(entriesAfterFirst).toHaveLength(1);

    const again = await markStatus(ticket, { status: 'pending' }, { headers });
    expect(again.status).toBe(202);
    expect(again.headers.get('Idempotency-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // The same body with other spacing is the same body.
    const respaced = await markStatus(ticket, undefined, { headers, rawBody: '{ "status" :\n  "pending" }' });
    expect(respaced.status).toBe(202);
    expect(respaced.headers.get('Idempotency-Replayed')).toBe('true');
    expect(respaced.body).toEqual(first.body);
    expect((await statusEntries()).filter((entry) => entry.requestId === request.id)).toHaveLength(1);
  });

  it('the same key with another body answers 422 idempotency_key_reused and records nothing', async () => {
    const ticket = ref();
    const request = await create({ ticket_ref: ticket });
    const headers = { 'Idempotency-Key': `ticket-${newId()}` };
    expectAcceptance(await markStatus(ticket, { status: 'pending' }, { headers }));
    expectError(await markStatus(ticket, { status: 'closed' }, { headers }), 422, 'idempotency_key_reused');
    // Another ref (path) with the same body is another request too.
    expectError(await markStatus(ref(), { status: 'pending' }, { headers }), 422, 'idempotency_key_reused');
    expect((await read(request.id)).ticket?.status).toBe('pending');
    expect((await statusEntries()).filter((entry) => entry.requestId === request.id)).toHaveLength(1);
  });
});

describe('rate limit and audit', () => {
  it('sends the X-RateLimit-* headers on 202 and on a refusal', async () => {
    for (const answer of [await markStatus(ref(), { status: 'open' }), await markStatus(ref(), { status: 'nope' })]) {
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        expect(answer.headers.get(name), `${name} on ${answer.status}`).toMatch(/^[0-9]+$/);
      }
      expect(Number(answer.headers.get('X-RateLimit-Limit'))).toBe(600);
    }
  });

  it('each received status writes a ticket.status_received entry naming the API key', async () => {
    const ticket = ref();
    const first = await create({ ticket_ref: ticket });
    const second = await create({ ticket_ref: ticket });
    expectAcceptance(await markStatus(ticket, { status: 'pending' }));
    expectAcceptance(await markStatus(ticket, { status: 'open' }));
    for (const request of [first, second]) {
      const entries = (await statusEntries()).filter((entry) => entry.requestId === request.id);
      expect(entries.map((entry) => entry.data.details.status)).toEqual(['pending', 'open']);
      for (const entry of entries) {
        expect(entry).toMatchObject({
          type: 'ticket.status_received',
          actor: { type: 'api', label: 'Helpdesk sync' },
          data: { details: { ticket_ref: ticket, channel: 'api_key', channel_name: 'Helpdesk sync', verified: false, trusted: false, action: 'recorded' } },
        });
      }
    }
    // An unmatched status writes no entry about any request.
    const before = (await statusEntries()).length;
    expectAcceptance(await markStatus(ref('NONE'), { status: 'closed' }));
    expect(await statusEntries()).toHaveLength(before);
  });
});
