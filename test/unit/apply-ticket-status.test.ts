import { beforeEach, describe, expect, it } from 'vitest';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { applyTicketStatus, type TicketStatusInput } from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import { CLIENT_ID, ORG_ID, OTHER_CLIENT_ID, URLS } from './support/fakes.ts';
import { NOW, INT_A, INT_B, id, requests, calls, deps, orgWith, TRUSTING, API_ACTOR, integrationChannel, input, seed, quoteOnly, resetTicketStatusFixture } from './support/ticket-status-fixture.ts';

/** applyTicketStatus: matching a status to requests, its audit entries, trust, and ended requests. */
beforeEach(resetTicketStatusFixture);

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
