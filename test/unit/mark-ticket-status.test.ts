import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import type { Integration } from '../../lambdas/core/integration.ts';
import type { HandoffRequest, Organisation } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import { markTicketStatus, MAX_TICKET_REF } from '../../lambdas/core/use-cases/tickets/mark-ticket-status.ts';
import { CLIENT_ID, FakeDirectory, fixedClock, KEY_ID, makeCaller, makeRequest, OTHER_CLIENT_ID, URLS } from './support/fakes.ts';
import { FakeTicketRequests } from './support/ticket-status-fixture.ts';

const INT_A = '01hintegration000000000001';
const INT_B = '01hintegration000000000002';
const id = (n: number) => `01hrequest00000000000000${String(n).padStart(2, '0')}`;

let requests: FakeTicketRequests;
let directory: FakeDirectory;
/** Integrations as the store answers them: those the directory knows, each of the client given here (default none). */
const integrationClients: Record<string, string | null> = {};
const integrations = {
  get: async (orgId: string, integrationId: string) =>
    directory.integrations.includes(integrationId) ? ({ id: integrationId, orgId, clientId: integrationClients[integrationId] ?? null } as Integration) : null,
};
const deps = () => ({ requests, directory, integrations, clock: fixedClock(), urls: URLS });
const trusting = (): Partial<Organisation> => ({ policy: { ...structuredClone(DEFAULT_POLICY), ticket: { ...DEFAULT_POLICY.ticket, trustUnverifiedWebhooks: true } } });

const seed = (n: number, status: HandoffRequest['status'], overrides: Partial<HandoffRequest> = {}) => {
  const request = makeRequest({ id: id(n), status, purgeReason: null, completedAt: null, revokedAt: null, revokedReason: null, purgeScheduledAt: null, version: 2, ...overrides });
  requests.items.set(request.id, request);
  return request;
};

const fieldErrorsOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
  return (error as ApiError).errors;
};

beforeEach(() => {
  requests = new FakeTicketRequests();
  directory = new FakeDirectory();
  directory.integrations = [INT_A];
});

describe('markTicketStatus: validation (422 by field)', () => {
  it('lists every bad field at once: the path and the body', async () => {
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), '', { status: 'gone' }))).toEqual({
      ref: ['Must be 1 to 120 characters.'],
      status: ['Must be one of open, pending, resolved, closed.'],
    });
  });

  it("a client-scoped key does not learn of another client's integration", async () => {
    integrationClients[INT_A] = OTHER_CLIENT_ID;
    try {
      const scoped = makeCaller({}, { clientId: CLIENT_ID });
      expect(await fieldErrorsOf(markTicketStatus(deps(), scoped, 'INC-1', { status: 'closed', integration_id: INT_A }))).toEqual({
        integration_id: ['No such ticketing integration.'],
      });
    } finally {
      delete integrationClients[INT_A];
    }
  });

  it('ref must be 1 to 120 characters', async () => {
    expect(MAX_TICKET_REF).toBe(120);
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), '', { status: 'closed' }))).toEqual({ ref: ['Must be 1 to 120 characters.'] });
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'x'.repeat(121), { status: 'closed' }))).toEqual({ ref: ['Must be 1 to 120 characters.'] });
    await expect(markTicketStatus(deps(), makeCaller(), 'x'.repeat(120), { status: 'closed' })).resolves.toMatchObject({ accepted: true, ticket_ref: 'x'.repeat(120) });
    await expect(markTicketStatus(deps(), makeCaller(), 'x', { status: 'closed' })).resolves.toMatchObject({ accepted: true });
  });

  it('a body without status says it is required, as every field left out says', async () => {
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', {}))).toEqual({ status: ['Required.'] });
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', undefined))).toEqual({ status: ['Required.'] });
  });

  it.each(['unknown', 'CLOSED', 'solved', '', 3, null])('status %j is refused', async (status) => {
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', { status }))).toEqual({ status: ['Must be one of open, pending, resolved, closed.'] });
  });

  it('a missing status or body is refused on status', async () => {
    expect(Object.keys((await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', {})))!)).toEqual(['status']);
    expect(Object.keys((await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', undefined)))!)).toEqual(['status']);
  });

  it('an unknown body field is refused', async () => {
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', { status: 'closed', verified: true }))).toEqual({ verified: ['Unknown field.'] });
  });

  it('integration_id must be a ULID', async () => {
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', { status: 'closed', integration_id: 'INT-1' }))).toEqual({
      integration_id: ['Must be a 26-character lower-case ULID.'],
    });
  });

  it('integration_id must name an integration of the organisation', async () => {
    expect(await fieldErrorsOf(markTicketStatus(deps(), makeCaller(), 'INC-42', { status: 'closed', integration_id: INT_B }))).toEqual({
      integration_id: ['No such ticketing integration.'],
    });
  });

  it('nothing changes on a refused call', async () => {
    seed(1, 'submitted');
    await fieldErrorsOf(markTicketStatus(deps(), makeCaller(trusting()), 'INC-42', { status: 'closed', integration_id: INT_B }));
    expect(requests.updates).toEqual([]);
  });
});

describe('markTicketStatus: the acceptance', () => {
  it('a trusted close: matched requests, verified false, and the note', async () => {
    seed(1, 'submitted');
    seed(2, 'completed');
    seed(3, 'opened', { ticket: { ref: 'INC-42', url: null, externalId: null, integrationId: null, status: null } });
    const acceptance = await markTicketStatus(deps(), makeCaller(trusting()), 'INC-42', { status: 'closed' });
    expect(acceptance).toEqual({
      accepted: true,
      ticket_ref: 'INC-42',
      status: 'closed',
      matched: { ticket_links: 3, requests: [id(1), id(3)], shares: [] },
      verified: false,
      note: 'Destroyed the stored credential of 1 request and completed it; recorded the status on 1 request more.',
    });
    // The API key's channel, unverified.
    expect(requests.updates[0].audit.actor).toEqual({ type: 'api', label: 'Helpdesk integration', id: KEY_ID });
    expect(requests.updates[0].audit.data.details).toMatchObject({ channel: 'api_key', channel_name: 'Helpdesk integration', verified: false, trusted: true });
  });

  it('an untrusted close destroys nothing and says why', async () => {
    seed(1, 'submitted');
    const acceptance = await markTicketStatus(deps(), makeCaller(), 'INC-42', { status: 'closed', integration_id: null });
    expect(acceptance.matched).toEqual({ ticket_links: 1, requests: [id(1)], shares: [] });
    expect(acceptance.note).toBe(
      'Recorded the status on 1 request; nothing was destroyed because the organisation does not trust unverified ticket statuses (the ticket policy\u2019s trust_unverified_webhooks, \u201cTrust unverified ticket webhooks\u201d in the application, is off).',
    );
    expect(requests.items.get(id(1))!.status).toBe('submitted');
  });

  it('no match within the key\'s client scope', async () => {
    seed(1, 'submitted');
    const acceptance = await markTicketStatus(deps(), makeCaller(trusting(), { clientId: OTHER_CLIENT_ID }), 'INC-42', { status: 'closed' });
    expect(acceptance).toEqual({
      accepted: true,
      ticket_ref: 'INC-42',
      status: 'closed',
      matched: { ticket_links: 0, requests: [], shares: [] },
      verified: false,
      note: "No request within this key's scope quotes or links this ticket, so nothing changed.",
    });
    expect(requests.updates).toEqual([]);
    const own = await markTicketStatus(deps(), makeCaller(trusting(), { clientId: CLIENT_ID }), 'INC-42', { status: 'closed' });
    expect(own.matched.requests).toEqual([id(1)]);
  });

  it('integration_id keeps to tickets linked through that integration', async () => {
    seed(1, 'opened');
    seed(2, 'opened', { ticket: { ref: 'INC-42', url: null, externalId: null, integrationId: null, status: null } });
    const acceptance = await markTicketStatus(deps(), makeCaller(), 'INC-42', { status: 'pending', integration_id: INT_A });
    expect(acceptance.matched).toEqual({ ticket_links: 1, requests: [id(1)], shares: [] });
    expect(acceptance.note).toBe('Recorded the status on 1 request.');
  });

  it('matches by external id', async () => {
    seed(1, 'opened');
    const acceptance = await markTicketStatus(deps(), makeCaller(), 'ext-42', { status: 'open' });
    expect(acceptance.matched.requests).toEqual([id(1)]);
    expect(acceptance.ticket_ref).toBe('ext-42');
  });
});
