/** The shared ground of the ticket-status use case's tests: a fake store that finds by ticket, recorders, and inputs. */
import type { Actor, HandoffRequest, Organisation, Policy, RequestStatus } from '../../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../../lambdas/core/policy.ts';
import type { ExpiryScheduler } from '../../../lambdas/core/ports.ts';
import type { TicketChannel, TicketStatusDeps, TicketStatusInput } from '../../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import { FakeRequestRepository, FIXED_NOW, fixedClock, KEY_ID, makeOrg, makeRequest, URLS } from './fakes.ts';

export const NOW = FIXED_NOW.toISOString();
export const INT_A = '01hintegration000000000001';
export const INT_B = '01hintegration000000000002';
export const id = (n: number) => `01hrequest00000000000000${String(n).padStart(2, '0')}`;

/** The fake repository plus findByTicket as the store answers it: the org's requests quoting or linked to `ref`, by id. */
export class FakeTicketRequests extends FakeRequestRepository {
  findCalls: Array<[string, string]> = [];
  async findByTicket(orgId: string, ref: string) {
    this.findCalls.push([orgId, ref]);
    return [...this.items.values()]
      .filter((request) => request.orgId === orgId && (request.ticket?.ref === ref || request.ticket?.externalId === ref))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((request) => structuredClone(request));
  }
}

export let requests: FakeTicketRequests;
export let calls: string[];
export let reported: string[];

const recorder = (name: string): ExpiryScheduler => ({
  schedule: async (requestId, atIso) => void calls.push(`${name}.schedule ${requestId} ${atIso}`),
  cancel: async (requestId) => void calls.push(`${name}.cancel ${requestId}`),
});

export const deps = (overrides: Partial<TicketStatusDeps> = {}): TicketStatusDeps => ({
  requests,
  clock: fixedClock(),
  urls: URLS,
  scheduler: recorder('expiry'),
  purgeScheduler: recorder('purge'),
  onScheduleFailure: (_error, requestId) => void reported.push(requestId),
  ...overrides,
});

export const orgWith = (ticket: Partial<Policy['ticket']> = {}, rotationSignal = false): Organisation =>
  makeOrg({ policy: { ...structuredClone(DEFAULT_POLICY), ticket: { ...DEFAULT_POLICY.ticket, ...ticket }, rotationSignal } });
export const TRUSTING = { trustUnverifiedWebhooks: true };

export const API_ACTOR: Actor = { type: 'api', label: 'Helpdesk integration', id: KEY_ID };
export const apiChannel: TicketChannel = { kind: 'api_key', name: 'Helpdesk integration', actor: API_ACTOR, integrationId: null };
export const integrationChannel = (integrationId: string, name = 'Generic webhook'): TicketChannel => ({
  kind: 'integration',
  name,
  actor: { type: 'system', label: name },
  integrationId,
});

export const input = (overrides: Partial<TicketStatusInput> = {}): TicketStatusInput => ({
  org: orgWith(),
  ref: 'INC-42',
  status: 'closed',
  verified: false,
  channel: apiChannel,
  onlyIntegration: null,
  clientId: null,
  ...overrides,
});

export const seed = (n: number, status: RequestStatus, overrides: Partial<HandoffRequest> = {}) => {
  const request = makeRequest({
    id: id(n),
    status,
    ticket: { ref: 'INC-42', url: 'https://tickets.test/INC-42', externalId: 'ext-42', integrationId: INT_A, status: 'open' },
    submittedAt: status === 'submitted' ? '2025-03-01T00:00:00.000Z' : null,
    recordExpiresAt: status === 'submitted' ? '2025-03-05T00:00:00.000Z' : null,
    linkExpiresAt: '2025-03-06T00:00:00.000Z',
    purgeReason: null,
    revokedReason: null,
    completedAt: null,
    revokedAt: null,
    purgeScheduledAt: null,
    version: 3,
    ...overrides,
  });
  requests.items.set(request.id, request);
  return request;
};

export const quoteOnly = { ref: 'INC-42', url: null, externalId: null, integrationId: null, status: null };

/** A fresh store and empty recorders; each test file calls it before each test. */
export const resetTicketStatusFixture = () => {
  requests = new FakeTicketRequests();
  calls = [];
  reported = [];
};
