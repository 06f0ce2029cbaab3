/**
 * A ticket status with what the ticket index says of the ticket (core/ticket-links.ts): no read of
 * the ticket indexes for a ticket nothing quotes, only the index of the kind that quotes it, the
 * shares left alone when none quotes it; and a sender's status starting from the index's own copy
 * of a request, which a change since loses to the write's version condition and reads again, and
 * which, ended where a relink could have revived it since, is read again before being left alone.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { HandoffRequest, RequestStatus } from '../../lambdas/core/model.ts';
import type { TicketLinks } from '../../lambdas/core/ticket-links.ts';
import { applyTicketStatus, type TicketStatusDeps, type TicketStatusInput } from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import type { Share } from '../../lambdas/core/share.ts';
import { FakeRequestRepository, fixedClock, makeOrg, makeRequest, ORG_ID, URLS } from './support/fakes.ts';

const REF = 'INC-77';
const id = (n: number) => `01hrequest00000000000000${String(n).padStart(2, '0')}`;

/** The requests quoting `ref`: afresh (findByTicket), or as the indexes hold them (`indexCopies`, older where the test says). */
class TicketRequests extends FakeRequestRepository {
  fresh = 0;
  indexed: Array<Pick<TicketLinks, 'quoted' | 'linked'>> = [];
  indexCopies = new Map<string, HandoffRequest>();
  private quoting(ref: string) {
    return [...this.items.values()].filter((request) => request.orgId === ORG_ID && request.ticket?.ref === ref);
  }
  async findByTicket(_orgId: string, ref: string) {
    this.fresh += 1;
    return this.quoting(ref).map((request) => structuredClone(request));
  }
  readonly asIndexed = {
    findByTicket: async (_orgId: string, ref: string, kinds: Pick<TicketLinks, 'quoted' | 'linked'>) => {
      this.indexed.push(kinds);
      return this.quoting(ref).map((request) => structuredClone(this.indexCopies.get(request.id) ?? request));
    },
  };
}

let requests: TicketRequests;
let shareQueries: number;

const deps = (): TicketStatusDeps => ({
  requests,
  indexedRequests: requests.asIndexed,
  clock: fixedClock(),
  urls: URLS,
  scheduler: { schedule: async () => undefined, cancel: async () => undefined },
  shares: {
    findByTicket: async () => {
      shareQueries += 1;
      return [] as Share[];
    },
  } as unknown as TicketStatusDeps['shares'],
});

const input = (overrides: Partial<TicketStatusInput> = {}): TicketStatusInput => ({
  org: makeOrg({ policy: { ...makeOrg().policy, ticket: { ...makeOrg().policy.ticket, trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } } }),
  ref: REF,
  status: 'closed',
  verified: false,
  channel: { kind: 'integration', name: 'Generic webhook', actor: { type: 'system', label: 'Generic webhook' }, integrationId: '01hintegration000000000001' },
  onlyIntegration: null,
  clientId: null,
  ...overrides,
});

const seed = (n: number, status: RequestStatus, version = 3) => {
  const request = makeRequest({
    id: id(n),
    orgId: ORG_ID,
    status,
    ticket: { ref: REF, url: null, externalId: null, integrationId: null, status: null },
    submittedAt: status === 'submitted' ? '2025-03-01T00:00:00.000Z' : null,
    recordExpiresAt: status === 'submitted' ? '2025-03-05T00:00:00.000Z' : null,
    linkExpiresAt: '2025-03-06T00:00:00.000Z',
    version,
  });
  requests.items.set(request.id, request);
  return request;
};

beforeEach(() => {
  requests = new TicketRequests();
  shareQueries = 0;
});

describe('a status with the ticket index’s word on its ticket', () => {
  it('reads no ticket index and no share for a ticket nothing quotes', async () => {
    seed(1, 'opened');
    const outcome = await applyTicketStatus(deps(), input({ links: { quoted: false, linked: false, shared: false } }));
    expect(outcome).toMatchObject({ ticketLinks: 0, changed: [], shares: [] });
    expect({ fresh: requests.fresh, indexed: requests.indexed, shareQueries }).toEqual({ fresh: 0, indexed: [], shareQueries: 0 });
  });

  it('queries only the index of the kind that quotes the ticket, and no share when none quotes it', async () => {
    seed(1, 'opened');
    await applyTicketStatus(deps(), input({ status: 'pending', links: { quoted: true, linked: false, shared: false } }));
    expect(requests.indexed).toEqual([{ quoted: true, linked: false, shared: false }]);
    expect({ fresh: requests.fresh, shareQueries }).toEqual({ fresh: 0, shareQueries: 0 });
  });

  it('without the index’s word (an organisation it does not cover), looks for every kind', async () => {
    await applyTicketStatus(deps(), input({ links: null }));
    expect(requests.indexed).toEqual([{ quoted: true, linked: true }]);
    expect(shareQueries).toBe(1);
  });

  it('reads afresh for a helpdesk’s read, which skips requests by their current ticket status', async () => {
    await applyTicketStatus(deps(), input({ verified: true, verification: { helpdesk: 'zendesk', readAt: '2025-03-04T05:00:00.000Z', vendorStatus: 'solved' } }));
    expect({ fresh: requests.fresh, indexed: requests.indexed }).toEqual({ fresh: 1, indexed: [] });
  });
});

describe('a sender’s status from the index’s copy of a request', () => {
  it('a copy older than the request loses the write, and the request read again decides: completed now', async () => {
    const current = seed(1, 'submitted', 5);
    requests.indexCopies.set(current.id, { ...structuredClone(current), status: 'opened', submittedAt: null, version: 4 });
    const outcome = await applyTicketStatus(deps(), input());
    expect(outcome.changed).toEqual([{ requestId: current.id, action: 'completed', purgeScheduledAt: null }]);
    expect(requests.updates.map((update) => update.before.version)).toEqual([5]);
    expect((await requests.get(current.id))!.status).toBe('completed');
  });

  it('a copy of a request ended since changes nothing: the request read again is left alone', async () => {
    const current = seed(1, 'revoked', 6);
    requests.indexCopies.set(current.id, { ...structuredClone(current), status: 'opened', version: 5 });
    const outcome = await applyTicketStatus(deps(), input({ status: 'pending' }));
    expect(outcome.changed).toEqual([]);
    expect(requests.updates).toEqual([]);
    expect((await requests.get(current.id))!.version).toBe(6);
  });

  it.each(['revoked', 'expired'] as const)('the index’s %s copy of a request given a new link since is read again, and the live request takes the status', async (ended) => {
    const current = seed(1, 'pending', 7);
    requests.indexCopies.set(current.id, { ...structuredClone(current), status: ended, version: 6 });
    const outcome = await applyTicketStatus(deps(), input({ status: 'pending' }));
    expect(outcome.changed).toEqual([{ requestId: current.id, action: 'recorded', purgeScheduledAt: current.purgeScheduledAt }]);
    expect(requests.updates.map((update) => update.before.version)).toEqual([7]);
    expect((await requests.get(current.id))!.ticket?.status).toBe('pending');
  });

  it('a revoked request read afresh (a helpdesk’s read) is not read a second time', async () => {
    const integrationId = '01hintegration000000000002';
    const current = seed(1, 'revoked', 4);
    // Linked to the helpdesk's ticket, which is what a helpdesk's read applies to.
    current.ticket = { ...current.ticket!, externalId: REF, integrationId };
    let reads = 0;
    const get = requests.get.bind(requests);
    requests.get = async (requestId: string) => {
      reads += 1;
      return get(requestId);
    };
    const verification = { helpdesk: 'zendesk', readAt: '2025-03-04T05:00:00.000Z', vendorStatus: 'solved' };
    const outcome = await applyTicketStatus(deps(), input({ verified: true, verification, onlyIntegration: integrationId }));
    expect(outcome.ticketLinks).toBe(1);
    expect(outcome.changed).toEqual([]);
    expect({ fresh: requests.fresh, reads }).toEqual({ fresh: 1, reads: 0 });
    expect((await get(current.id))!.version).toBe(4);
  });

  it('a copy of a request that ended for good (completed) is not read again', async () => {
    const current = seed(1, 'completed', 4);
    let reads = 0;
    const get = requests.get.bind(requests);
    requests.get = async (requestId: string) => {
      reads += 1;
      return get(requestId);
    };
    const outcome = await applyTicketStatus(deps(), input());
    expect(outcome.changed).toEqual([]);
    expect(reads).toBe(0);
    expect((await get(current.id))!.version).toBe(4);
  });
});
