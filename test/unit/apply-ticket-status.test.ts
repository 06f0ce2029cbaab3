import { beforeEach, describe, expect, it } from 'vitest';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import type { Actor, HandoffRequest, Organisation, Policy, RequestStatus, TicketStatus } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import type { ExpiryScheduler } from '../../lambdas/core/ports.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import {
  applyTicketStatus,
  type TicketChannel,
  type TicketStatusDeps,
  type TicketStatusInput,
} from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import { CLIENT_ID, FakeRequestRepository, FIXED_NOW, fixedClock, KEY_ID, makeOrg, makeRequest, ORG_ID, OTHER_CLIENT_ID, URLS } from './support/fakes.ts';

const NOW = FIXED_NOW.toISOString();
const INT_A = '01hintegration000000000001';
const INT_B = '01hintegration000000000002';
const id = (n: number) => `01hrequest00000000000000${String(n).padStart(2, '0')}`;

/** The fake repository plus findByTicket as the store answers it: the org's requests quoting or linked to `ref`, by id. */
class FakeTicketRequests extends FakeRequestRepository {
  findCalls: Array<[string, string]> = [];
  async findByTicket(orgId: string, ref: string) {
    this.findCalls.push([orgId, ref]);
    return [...this.items.values()]
      .filter((request) => request.orgId === orgId && (request.ticket?.ref === ref || request.ticket?.externalId === ref))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((request) => structuredClone(request));
  }
}

let requests: FakeTicketRequests;
let calls: string[];
let reported: string[];

const recorder = (name: string): ExpiryScheduler => ({
  schedule: async (requestId, atIso) => void calls.push(`${name}.schedule ${requestId} ${atIso}`),
  cancel: async (requestId) => void calls.push(`${name}.cancel ${requestId}`),
});

const deps = (overrides: Partial<TicketStatusDeps> = {}): TicketStatusDeps => ({
  requests,
  clock: fixedClock(),
  urls: URLS,
  scheduler: recorder('expiry'),
  purgeScheduler: recorder('purge'),
  onScheduleFailure: (_error, requestId) => void reported.push(requestId),
  ...overrides,
});

const orgWith = (ticket: Partial<Policy['ticket']> = {}, rotationSignal = false): Organisation =>
  makeOrg({ policy: { ...structuredClone(DEFAULT_POLICY), ticket: { ...DEFAULT_POLICY.ticket, ...ticket }, rotationSignal } });
const TRUSTING = { trustUnverifiedWebhooks: true };

const API_ACTOR: Actor = { type: 'api', label: 'Helpdesk integration', id: KEY_ID };
const apiChannel: TicketChannel = { kind: 'api_key', name: 'Helpdesk integration', actor: API_ACTOR, integrationId: null };
const integrationChannel = (integrationId: string, name = 'Generic webhook'): TicketChannel => ({
  kind: 'integration',
  name,
  actor: { type: 'system', label: name },
  integrationId,
});

const input = (overrides: Partial<TicketStatusInput> = {}): TicketStatusInput => ({
  org: orgWith(),
  ref: 'INC-42',
  status: 'closed',
  verified: false,
  channel: apiChannel,
  onlyIntegration: null,
  clientId: null,
  ...overrides,
});

const seed = (n: number, status: RequestStatus, overrides: Partial<HandoffRequest> = {}) => {
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

const quoteOnly = { ref: 'INC-42', url: null, externalId: null, integrationId: null, status: null };

beforeEach(() => {
  requests = new FakeTicketRequests();
  calls = [];
  reported = [];
});

describe('matching', () => {
  beforeEach(() => {
    seed(1, 'opened'); // INC-42 linked through INT_A as ext-42
    seed(2, 'opened', { ticket: { ...quoteOnly } }); // only quotes INC-42
    seed(3, 'opened', { ticket: { ref: 'INC-42', url: null, externalId: 'b-99', integrationId: INT_B, status: null } }); // INC-42 through INT_B
    seed(4, 'opened', { client: { id: OTHER_CLIENT_ID, name: 'Other client' }, ticket: { ...quoteOnly } }); // another client
    seed(5, 'opened', { ticket: { ref: 'INC-7', url: null, externalId: 'ext-7', integrationId: INT_A, status: null } }); // another ticket
  });
  const matched = async (overrides: Partial<TicketStatusInput>) => {
    const outcome = await applyTicketStatus(deps(), input({ status: 'open', ...overrides }));
    expect(outcome.ticketLinks).toBe(outcome.changed.length);
    return outcome.changed.map((change) => change.requestId);
  };

  it('an API key matches every request quoting the ref, whatever the integration, oldest first', async () => {
    expect(await matched({})).toEqual([id(1), id(2), id(3), id(4)]);
    expect(requests.findCalls).toEqual([[ORG_ID, 'INC-42']]);
  });

  it('an API key matches a linked ticket by its external id', async () => {
    expect(await matched({ ref: 'ext-42' })).toEqual([id(1)]);
    expect(await matched({ ref: 'b-99' })).toEqual([id(3)]);
  });

  it('matches exactly: other capitals or a prefix do not match', async () => {
    expect(await matched({ ref: 'inc-42' })).toEqual([]);
    expect(await matched({ ref: 'INC-4' })).toEqual([]);
  });

  it('a client scope keeps to that client', async () => {
    expect(await matched({ clientId: CLIENT_ID })).toEqual([id(1), id(2), id(3)]);
    expect(await matched({ clientId: OTHER_CLIENT_ID })).toEqual([id(4)]);
  });

  it('an integration\'s URL matches its own links and quote-only requests, never another integration\'s', async () => {
    expect(await matched({ channel: integrationChannel(INT_A) })).toEqual([id(1), id(2), id(4)]);
    expect(await matched({ channel: integrationChannel(INT_B) })).toEqual([id(2), id(3), id(4)]);
  });

  it('an integration\'s URL matches its own links by external id, but not another integration\'s', async () => {
    expect(await matched({ ref: 'ext-42', channel: integrationChannel(INT_A) })).toEqual([id(1)]);
    expect(await matched({ ref: 'ext-42', channel: integrationChannel(INT_B) })).toEqual([]);
    expect(await matched({ ref: 'b-99', channel: integrationChannel(INT_A) })).toEqual([]);
  });

  it('an integration\'s URL matches a request with no integration by its quoted ref only, not by an external id', async () => {
    seed(6, 'opened', { ticket: { ref: 'INC-600', url: null, externalId: 'loose-600', integrationId: null, status: null } });
    expect(await matched({ ref: 'loose-600', channel: integrationChannel(INT_A) })).toEqual([]);
    expect(await matched({ ref: 'INC-600', channel: integrationChannel(INT_A) })).toEqual([id(6)]);
    // An API key matches it both ways.
    expect(await matched({ ref: 'loose-600' })).toEqual([id(6)]);
  });

  it('an integration\'s URL with a client scope', async () => {
    expect(await matched({ channel: integrationChannel(INT_A), clientId: CLIENT_ID })).toEqual([id(1), id(2)]);
  });

  it('onlyIntegration keeps to tickets linked through that integration, by ref or external id', async () => {
    expect(await matched({ onlyIntegration: INT_A })).toEqual([id(1)]);
    expect(await matched({ onlyIntegration: INT_B })).toEqual([id(3)]);
    expect(await matched({ onlyIntegration: INT_A, ref: 'ext-42' })).toEqual([id(1)]);
    expect(await matched({ onlyIntegration: INT_B, ref: 'ext-42' })).toEqual([]);
  });

  it('nothing matches: no change, no update', async () => {
    const outcome = await applyTicketStatus(deps(), input({ ref: 'NOPE-1' }));
    expect(outcome).toEqual({ ticketLinks: 0, changed: [], trusted: false, verifying: 0, shares: [] });
    expect(requests.updates).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('audit entries', () => {
  it('a trusted close of a submitted request: ticket.status_received then request.completed, in one update that purges', async () => {
    seed(1, 'submitted');
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING), statusWord: 'Solved' }));
    expect(outcome).toEqual({ ticketLinks: 1, changed: [{ requestId: id(1), action: 'completed', purgeScheduledAt: null }], trusted: true, verifying: 0, shares: [] });
    expect(requests.updates).toHaveLength(1);
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(true);
    expect(update.before.version).toBe(3);
    expect(update.after).toMatchObject({ status: 'completed', purgeReason: 'ticket_closed', completedAt: NOW, purgeScheduledAt: null });
    const view = toRequestView(update.after, URLS);
    expect(view.ticket).toEqual({ ref: 'INC-42', url: 'https://tickets.test/INC-42', external_id: 'ext-42', integration_id: INT_A, status: 'closed' });
    const base = { orgId: ORG_ID, actor: API_ACTOR, clientId: CLIENT_ID, requestId: id(1) };
    const dataActor = { type: 'api', label: 'Helpdesk integration' };
    expect(update.audit).toEqual({
      ...base,
      type: 'ticket.status_received',
      data: {
        request: view,
        actor: dataActor,
        details: {
          ticket_ref: 'INC-42',
          status: 'closed',
          status_word: 'Solved',
          channel: 'api_key',
          channel_name: 'Helpdesk integration',
          verified: false,
          trusted: true,
          action: 'completed',
        },
      },
    });
    expect(update.followUps).toEqual([
      {
        ...base,
        type: 'request.completed',
        data: { request: view, actor: dataActor, details: { purge_reason: 'ticket_closed', ticket_ref: 'INC-42', channel: 'api_key', channel_name: 'Helpdesk integration' } },
      },
    ]);
    expect(requests.items.get(id(1))).toMatchObject({ status: 'completed', version: 4 });
  });

  it('the rotation signal follows the completion when the organisation policy turns it on', async () => {
    seed(1, 'submitted');
    await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING, true) }));
    const [update] = requests.updates;
    expect(update.followUps!.map((entry) => entry.type)).toEqual(['request.completed', 'credential.rotation_recommended']);
    expect(update.followUps![1].data.details).toEqual({
      reason: 'credential_handed_over',
      purge_reason: 'ticket_closed',
      ticket_ref: 'INC-42',
      channel: 'api_key',
      channel_name: 'Helpdesk integration',
    });
    expect(update.followUps![1].actor).toEqual(API_ACTOR);
  });

  it('the rotation signal never follows a revoke, a scheduled purge or a recorded status', async () => {
    seed(1, 'opened');
    seed(2, 'submitted');
    seed(3, 'pending');
    await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, revokeUnsubmittedOnClose: true, gracePeriodMinutes: 30 }, true) }));
    expect(requests.updates.map((update) => (update.followUps ?? []).map((entry) => entry.type))).toEqual([['request.revoked'], ['request.purge_scheduled'], ['request.revoked']]);
    await applyTicketStatus(deps(), input({ status: 'unknown', org: orgWith(TRUSTING, true) }));
    expect(requests.updates[3].followUps).toBeUndefined();
  });

  it('an integration channel: details name the integration; the actor is the channel\'s', async () => {
    seed(1, 'submitted');
    await applyTicketStatus(deps(), input({ channel: integrationChannel(INT_A, 'Zendesk (generic)'), status: 'resolved', statusWord: 'Solved', verified: true }));
    const [update] = requests.updates;
    expect(update.audit.actor).toEqual({ type: 'system', label: 'Zendesk (generic)' });
    expect(update.audit.data.actor).toEqual({ type: 'system', label: 'Zendesk (generic)' });
    expect(update.audit.data.details).toEqual({
      ticket_ref: 'INC-42',
      status: 'resolved',
      status_word: 'Solved',
      channel: 'integration',
      channel_name: 'Zendesk (generic)',
      verified: true,
      trusted: true,
      action: 'completed',
    });
    expect(update.followUps![0].data.details).toEqual({ purge_reason: 'ticket_closed', ticket_ref: 'INC-42', channel: 'integration', channel_name: 'Zendesk (generic)' });
  });

  it('a revoke: request.revoked with revoked_reason ticket_closed, nothing purged', async () => {
    seed(1, 'pending');
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, revokeUnsubmittedOnClose: true }) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'revoked', purgeScheduledAt: null }]);
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(false);
    expect(update.after).toMatchObject({ status: 'revoked', revokedReason: 'ticket_closed', revokedAt: NOW });
    expect(update.audit.type).toBe('ticket.status_received');
    expect(update.audit.data.details).toMatchObject({ action: 'revoked', trusted: true, verified: false });
    expect(update.followUps).toHaveLength(1);
    expect(update.followUps![0].type).toBe('request.revoked');
    expect(update.followUps![0].data.details).toEqual({ revoked_reason: 'ticket_closed', ticket_ref: 'INC-42', channel: 'api_key', channel_name: 'Helpdesk integration' });
  });

  it('a scheduled purge: request.purge_scheduled with the deadline and the grace period', async () => {
    seed(1, 'submitted');
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, gracePeriodMinutes: 30 }) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'purge_scheduled', purgeScheduledAt: '2025-03-04T05:36:07.000Z' }]);
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(false);
    expect(update.after).toMatchObject({ status: 'submitted', purgeScheduledAt: '2025-03-04T05:36:07.000Z' });
    expect(update.audit.data.details).toMatchObject({ action: 'purge_scheduled' });
    expect(update.followUps).toHaveLength(1);
    expect(update.followUps![0].type).toBe('request.purge_scheduled');
    expect(update.followUps![0].data.details).toEqual({
      purge_scheduled_at: '2025-03-04T05:36:07.000Z',
      grace_period_minutes: 30,
      ticket_ref: 'INC-42',
      channel: 'api_key',
      channel_name: 'Helpdesk integration',
    });
  });

  it('a cancelled purge: request.purge_cancelled with the status, even from an untrusted sender', async () => {
    seed(1, 'submitted', { purgeScheduledAt: '2025-03-04T05:30:00.000Z' });
    const outcome = await applyTicketStatus(deps(), input({ status: 'open' }));
    expect(outcome).toEqual({ ticketLinks: 1, changed: [{ requestId: id(1), action: 'purge_cancelled', purgeScheduledAt: null }], trusted: false, verifying: 0, shares: [] });
    const [update] = requests.updates;
    expect(update.purgeMaterial).toBe(false);
    expect(update.audit.data.details).toEqual({
      ticket_ref: 'INC-42',
      status: 'open',
      channel: 'api_key',
      channel_name: 'Helpdesk integration',
      verified: false,
      trusted: false,
      action: 'purge_cancelled',
    });
    expect(update.followUps!.map((entry) => [entry.type, entry.data.details])).toEqual([
      ['request.purge_cancelled', { ticket_ref: 'INC-42', status: 'open', channel: 'api_key', channel_name: 'Helpdesk integration' }],
    ]);
  });

  it('a recorded status: only ticket.status_received, no status_word when none was given', async () => {
    seed(1, 'opened');
    await applyTicketStatus(deps(), input({ status: 'pending' }));
    const [update] = requests.updates;
    expect(update.followUps).toBeUndefined();
    expect(update.purgeMaterial).toBe(false);
    expect(update.audit.data.details).toEqual({
      ticket_ref: 'INC-42',
      status: 'pending',
      channel: 'api_key',
      channel_name: 'Helpdesk integration',
      verified: false,
      trusted: false,
      action: 'recorded',
    });
    expect(update.after.ticket).toEqual({ ref: 'INC-42', url: 'https://tickets.test/INC-42', externalId: 'ext-42', integrationId: INT_A, status: 'pending', statusVerified: false, statusAt: NOW });
  });

  it('the audit entry carries the ref as sent (an external id), not the request\'s ref', async () => {
    seed(1, 'opened');
    await applyTicketStatus(deps(), input({ ref: 'ext-42', status: 'pending' }));
    expect(requests.updates[0].audit.data.details).toMatchObject({ ticket_ref: 'ext-42' });
  });
});

describe('trust', () => {
  it('an untrusted close destroys nothing: every request records the status, no purge, no schedule', async () => {
    seed(1, 'submitted');
    seed(2, 'opened');
    seed(3, 'pending');
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ revokeUnsubmittedOnClose: true }) }));
    expect(outcome).toEqual({
      ticketLinks: 3,
      changed: [1, 2, 3].map((n) => ({ requestId: id(n), action: 'recorded', purgeScheduledAt: null })),
      trusted: false,
      verifying: 0,
      shares: [],
    });
    expect(requests.updates.map((update) => [update.after.status, update.purgeMaterial, update.followUps])).toEqual([
      ['submitted', false, undefined],
      ['opened', false, undefined],
      ['pending', false, undefined],
    ]);
    expect(requests.updates.every((update) => update.after.ticket!.status === 'closed' && update.after.ticket!.statusVerified === false)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('an untrusted close with a grace period schedules nothing', async () => {
    seed(1, 'submitted');
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ gracePeriodMinutes: 30 }) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'recorded', purgeScheduledAt: null }]);
    expect(calls).toEqual([]);
  });

  it('a verified close is trusted without the policy option', async () => {
    seed(1, 'submitted');
    const outcome = await applyTicketStatus(deps(), input({ verified: true }));
    expect(outcome.trusted).toBe(true);
    expect(outcome.changed[0].action).toBe('completed');
    expect(requests.updates[0].after.ticket!.statusVerified).toBe(true);
  });

  it('resolved does not destroy when the policy counts only closed', async () => {
    seed(1, 'submitted');
    const outcome = await applyTicketStatus(deps(), input({ status: 'resolved', org: orgWith({ ...TRUSTING, closeStatuses: ['closed'] }) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'recorded', purgeScheduledAt: null }]);
    expect(requests.updates[0].purgeMaterial).toBe(false);
  });
});

describe('ended requests', () => {
  it('count in ticketLinks but are not changed, and get no update', async () => {
    seed(1, 'completed', { purgeReason: 'completed_via_api', completedAt: '2025-03-02T00:00:00.000Z' });
    seed(2, 'submitted');
    seed(3, 'revoked', { revokedReason: 'revoked_via_api' });
    seed(4, 'expired', { purgeReason: 'expired' });
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING) }));
    expect(outcome).toEqual({ ticketLinks: 4, changed: [{ requestId: id(2), action: 'completed', purgeScheduledAt: null }], trusted: true, verifying: 0, shares: [] });
    expect(requests.updates.map((update) => update.before.id)).toEqual([id(2)]);
    expect(requests.items.get(id(1))).toMatchObject({ status: 'completed', version: 3, purgeReason: 'completed_via_api' });
  });

  it('all ended: ticketLinks counts them, changed is empty', async () => {
    seed(1, 'completed');
    seed(2, 'expired');
    expect(await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING) }))).toEqual({ ticketLinks: 2, changed: [], trusted: true, verifying: 0, shares: [] });
    expect(requests.updates).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('schedules', () => {
  it('a completion commits, then cancels the expiry; with no purge scheduled before, the purge schedule is untouched', async () => {
    seed(1, 'submitted');
    requests.beforeUpdate = (call) => void calls.push(`update ${call.before.id}`);
    await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING) }));
    expect(calls).toEqual([`update ${id(1)}`, `expiry.cancel ${id(1)}`]);
  });

  it('a completion of a request whose purge was scheduled cancels both', async () => {
    seed(1, 'submitted', { purgeScheduledAt: '2025-03-04T05:30:00.000Z' });
    await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING) }));
    expect(calls).toEqual([`expiry.cancel ${id(1)}`, `purge.cancel ${id(1)}`]);
  });

  it('a revoke cancels the expiry', async () => {
    seed(1, 'opened');
    await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, revokeUnsubmittedOnClose: true }) }));
    expect(calls).toEqual([`expiry.cancel ${id(1)}`]);
  });

  it('a scheduled purge arms the purge schedule at the deadline and leaves the expiry alone', async () => {
    seed(1, 'submitted');
    requests.beforeUpdate = (call) => void calls.push(`update ${call.before.id}`);
    await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, gracePeriodMinutes: 30 }) }));
    expect(calls).toEqual([`update ${id(1)}`, `purge.schedule ${id(1)} 2025-03-04T05:36:07.000Z`]);
  });

  it('a second close inside the window re-arms nothing', async () => {
    seed(1, 'submitted', { purgeScheduledAt: '2025-03-04T05:30:00.000Z' });
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, gracePeriodMinutes: 30 }) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'recorded', purgeScheduledAt: '2025-03-04T05:30:00.000Z' }]);
    expect(calls).toEqual([]);
    expect(requests.items.get(id(1))!.purgeScheduledAt).toBe('2025-03-04T05:30:00.000Z');
  });

  it('a reopen cancels the purge schedule only', async () => {
    seed(1, 'submitted', { purgeScheduledAt: '2025-03-04T05:30:00.000Z' });
    await applyTicketStatus(deps(), input({ status: 'pending' }));
    expect(calls).toEqual([`purge.cancel ${id(1)}`]);
  });

  it('a recorded status touches no schedule', async () => {
    seed(1, 'submitted');
    seed(2, 'pending');
    await applyTicketStatus(deps(), input({ status: 'open', org: orgWith(TRUSTING) }));
    expect(calls).toEqual([]);
  });

  it('works without a purge scheduler or an expiry scheduler', async () => {
    seed(1, 'submitted');
    const outcome = await applyTicketStatus(deps({ purgeScheduler: undefined, scheduler: undefined }), input({ org: orgWith({ ...TRUSTING, gracePeriodMinutes: 30 }) }));
    expect(outcome.changed[0].action).toBe('purge_scheduled');
    expect(calls).toEqual([]);
  });

  it('a failing purge scheduler is reported; the change stands', async () => {
    seed(1, 'submitted');
    const failing: ExpiryScheduler = {
      schedule: async () => {
        throw new Error('scheduler down');
      },
      cancel: async () => {
        throw new Error('scheduler down');
      },
    };
    const outcome = await applyTicketStatus(deps({ purgeScheduler: failing }), input({ org: orgWith({ ...TRUSTING, gracePeriodMinutes: 30 }) }));
    expect(outcome.changed[0].action).toBe('purge_scheduled');
    expect(reported).toEqual([id(1)]);
    expect(requests.items.get(id(1))!.purgeScheduledAt).toBe('2025-03-04T05:36:07.000Z');
    // A failing reporter does not fail it either.
    seed(2, 'submitted', { purgeScheduledAt: '2025-03-04T05:30:00.000Z' });
    const reopened = await applyTicketStatus(
      deps({ purgeScheduler: failing, onScheduleFailure: () => { throw new Error('reporter broken'); } }),
      input({ status: 'open' }),
    );
    expect(reopened.changed.map((change) => change.action)).toEqual(['purge_cancelled', 'purge_cancelled']);
  });
});

describe('races (WriteConflict)', () => {
  it('re-reads after a lost race and applies the status to the fresh version', async () => {
    seed(1, 'submitted');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(id(1))!;
        requests.items.set(id(1), { ...stored, revealCount: 4, version: stored.version + 1 });
      }
    };
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'completed', purgeScheduledAt: null }]);
    expect(requests.getCalls).toBe(1);
    expect(requests.updates).toHaveLength(1);
    expect(requests.updates[0].before).toMatchObject({ version: 4, revealCount: 4 });
    expect(requests.items.get(id(1))).toMatchObject({ status: 'completed', version: 5, revealCount: 4 });
    expect(calls).toEqual([`expiry.cancel ${id(1)}`]);
  });

  it('decides afresh: a request completed meanwhile is left alone and not counted as changed', async () => {
    seed(1, 'submitted');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(id(1))!;
        requests.items.set(id(1), { ...stored, status: 'completed', purgeReason: 'completed_via_api', version: stored.version + 1 });
      }
    };
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith(TRUSTING) }));
    expect(outcome).toEqual({ ticketLinks: 1, changed: [], trusted: true, verifying: 0, shares: [] });
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(id(1))!.purgeReason).toBe('completed_via_api');
    expect(calls).toEqual([]);
  });

  it('decides afresh: a purge another close scheduled meanwhile keeps its deadline', async () => {
    seed(1, 'submitted');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) {
        const stored = requests.items.get(id(1))!;
        requests.items.set(id(1), { ...stored, purgeScheduledAt: '2025-03-04T05:20:00.000Z', version: stored.version + 1 });
      }
    };
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, gracePeriodMinutes: 30 }) }));
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'recorded', purgeScheduledAt: '2025-03-04T05:20:00.000Z' }]);
    expect(calls).toEqual([]);
  });

  it('a request deleted meanwhile is skipped', async () => {
    seed(1, 'opened');
    requests.beforeUpdate = (_call, attempt) => {
      if (attempt === 1) requests.items.delete(id(1));
    };
    expect(await applyTicketStatus(deps(), input({ status: 'open' }))).toEqual({ ticketLinks: 1, changed: [], trusted: false, verifying: 0, shares: [] });
  });

  it('gives up after thirty lost races with the WriteConflict', async () => {
    seed(1, 'opened');
    let attempts = 0;
    requests.beforeUpdate = () => {
      attempts += 1;
      throw new WriteConflict('always losing');
    };
    await expect(applyTicketStatus(deps(), input({ status: 'open' }))).rejects.toBeInstanceOf(WriteConflict);
    expect(attempts).toBe(30);
    expect(requests.getCalls).toBe(29);
  });

  it('does not retry other errors', async () => {
    seed(1, 'opened');
    let attempts = 0;
    requests.beforeUpdate = () => {
      attempts += 1;
      throw new Error('throttled');
    };
    await expect(applyTicketStatus(deps(), input({ status: 'open' }))).rejects.toThrow('throttled');
    expect(attempts).toBe(1);
    expect(requests.getCalls).toBe(0);
  });
});

describe('several requests on one ticket', () => {
  it('each changes in its own update with its own action', async () => {
    seed(1, 'submitted');
    seed(2, 'opened');
    seed(3, 'completed');
    seed(4, 'submitted', { ticket: { ...quoteOnly } });
    const outcome = await applyTicketStatus(deps(), input({ org: orgWith({ ...TRUSTING, revokeUnsubmittedOnClose: true, gracePeriodMinutes: 30 }) }));
    expect(outcome).toEqual({
      ticketLinks: 4,
      changed: [
        { requestId: id(1), action: 'purge_scheduled', purgeScheduledAt: '2025-03-04T05:36:07.000Z' },
        { requestId: id(2), action: 'revoked', purgeScheduledAt: null },
        { requestId: id(4), action: 'purge_scheduled', purgeScheduledAt: '2025-03-04T05:36:07.000Z' },
      ],
      trusted: true,
      verifying: 0,
      shares: [],
    });
    expect(requests.updates.map((update) => update.before.id)).toEqual([id(1), id(2), id(4)]);
    expect(calls).toEqual([
      `purge.schedule ${id(1)} 2025-03-04T05:36:07.000Z`,
      `expiry.cancel ${id(2)}`,
      `purge.schedule ${id(4)} 2025-03-04T05:36:07.000Z`,
    ]);
  });

  it.each(['open', 'pending', 'resolved', 'closed', 'unknown'] as TicketStatus[])('every live request takes the status %s', async (status) => {
    seed(1, 'pending');
    seed(2, 'opened');
    seed(3, 'submitted');
    await applyTicketStatus(deps(), input({ status }));
    expect(requests.updates.map((update) => update.after.ticket!.status)).toEqual([status, status, status]);
  });
});

describe('a status read from the helpdesk (verified)', () => {
  const READ_AT = '2025-03-02T09:00:00.000Z';
  const helpdeskRead = (overrides: Partial<TicketStatusInput> = {}) =>
    input({
      ref: 'ext-42',
      verified: true,
      verification: { helpdesk: 'zendesk', readAt: READ_AT, vendorStatus: 'closed' },
      channel: { kind: 'helpdesk', name: 'Zendesk', actor: { type: 'system', label: 'Zendesk' }, integrationId: INT_A },
      onlyIntegration: INT_A,
      ...overrides,
    });

  it("reaches only the requests linked to the ticket it read, never one of the integration's that quotes the same words as its reference", async () => {
    seed(1, 'submitted'); // linked as ext-42
    seed(2, 'submitted', { ticket: { ref: 'ext-42', url: null, externalId: 'ext-99', integrationId: INT_A, status: 'open' } }); // quotes ext-42, linked to another ticket
    const outcome = await applyTicketStatus(deps(), helpdeskRead());
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'completed', purgeScheduledAt: null }]);
    expect(requests.items.get(id(2))!.status).toBe('submitted');
  });

  it('destroys nothing when the ticket was reopened (a hint) after the read, and asks for another read', async () => {
    const queued: unknown[] = [];
    seed(1, 'submitted', { ticket: { ref: 'INC-42', url: null, externalId: 'ext-42', integrationId: INT_A, status: 'open', statusVerified: false, statusAt: '2025-03-02T09:00:05.000Z' } });
    const outcome = await applyTicketStatus(deps({ ticketChecks: { enqueue: async (check) => void queued.push(check) } }), helpdeskRead());
    expect(outcome.changed).toEqual([]);
    expect(requests.updates).toEqual([]);
    expect(queued).toEqual([{ orgId: requests.items.get(id(1))!.orgId, integrationId: INT_A, externalId: 'ext-42', attempt: 0 }]);
  });

  it('applies a close read after the reopen', async () => {
    seed(1, 'submitted', { ticket: { ref: 'INC-42', url: null, externalId: 'ext-42', integrationId: INT_A, status: 'open', statusVerified: false, statusAt: '2025-03-02T08:59:00.000Z' } });
    const outcome = await applyTicketStatus(deps(), helpdeskRead());
    expect(outcome.changed).toEqual([{ requestId: id(1), action: 'completed', purgeScheduledAt: null }]);
  });

  it('drops a read older than the read the request holds: a close read before a reopen, applied after it, destroys nothing', async () => {
    // Read A (closed, 09:00) and read B (open, 09:00:30) of two checks crossed: B was applied first.
    seed(1, 'submitted', { ticket: { ref: 'INC-42', url: null, externalId: 'ext-42', integrationId: INT_A, status: 'open', statusVerified: true, statusAt: '2025-03-02T09:00:31.000Z', statusReadAt: '2025-03-02T09:00:30.000Z' } });
    const outcome = await applyTicketStatus(deps(), helpdeskRead());
    expect(outcome.changed).toEqual([]);
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(id(1))!.status).toBe('submitted');
  });

  it('drops an open read older than the close read the request holds: it does not undo a purge scheduled on the newer one', async () => {
    const held = { ref: 'INC-42', url: null, externalId: 'ext-42', integrationId: INT_A, status: 'closed' as const, statusVerified: true, statusAt: '2025-03-02T09:00:31.000Z', statusReadAt: '2025-03-02T09:00:30.000Z' };
    seed(1, 'submitted', { ticket: held, purgeScheduledAt: '2025-03-02T10:00:30.000Z' });
    const outcome = await applyTicketStatus(deps(), helpdeskRead({ status: 'open' }));
    expect(outcome.changed).toEqual([]);
    expect(requests.items.get(id(1))!.purgeScheduledAt).toBe('2025-03-02T10:00:30.000Z');
  });

  it('keeps the read time of the status it applies, for the next read to be judged by', async () => {
    seed(1, 'submitted');
    await applyTicketStatus(deps(), helpdeskRead({ status: 'open' }));
    expect(requests.items.get(id(1))!.ticket).toMatchObject({ status: 'open', statusVerified: true, statusReadAt: READ_AT });
  });
});
