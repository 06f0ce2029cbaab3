import { beforeEach, describe, expect, it } from 'vitest';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import { applyTicketStatus } from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import type { ExpiryScheduler } from '../../lambdas/core/ports.ts';
import type { TicketStatus } from '../../lambdas/core/model.ts';
import type { TicketStatusInput } from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import { INT_A, id, requests, calls, reported, deps, orgWith, TRUSTING, input, seed, quoteOnly, resetTicketStatusFixture } from './support/ticket-status-fixture.ts';

/** applyTicketStatus: the schedules a status moves, races, several requests on one ticket, and statuses read from the helpdesk. */
beforeEach(resetTicketStatusFixture);

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

  it('notes the read time of a read that finds the held status, so an older read answered after it destroys nothing', async () => {
    // Read A (closed, 09:00) and read B (open, 09:00:30) of two checks crossed; the request held open from 08:00.
    const held = { ref: 'INC-42', url: null, externalId: 'ext-42', integrationId: INT_A, status: 'open' as const, statusVerified: true, statusAt: '2025-03-02T08:00:01.000Z', statusReadAt: '2025-03-02T08:00:00.000Z' };
    seed(1, 'submitted', { ticket: held });
    expect((await applyTicketStatus(deps(), helpdeskRead({ status: 'open', verification: { helpdesk: 'zendesk', readAt: '2025-03-02T09:00:30.000Z', vendorStatus: 'open' } }))).changed).toEqual([]);
    expect(requests.updates).toEqual([]);
    expect(requests.items.get(id(1))!.ticket!.statusReadAt).toBe('2025-03-02T09:00:30.000Z');
    const outcome = await applyTicketStatus(deps(), helpdeskRead());
    expect(outcome.changed).toEqual([]);
    expect(requests.items.get(id(1))!.status).toBe('submitted');
  });

  it('notes nothing for a read no later than the one held', async () => {
    const held = { ref: 'INC-42', url: null, externalId: 'ext-42', integrationId: INT_A, status: 'open' as const, statusVerified: true, statusAt: '2025-03-02T09:00:01.000Z', statusReadAt: READ_AT };
    seed(1, 'submitted', { ticket: held });
    await applyTicketStatus(deps(), helpdeskRead({ status: 'open' }));
    expect(requests.noteCalls).toEqual([]);
    expect(requests.updates).toEqual([]);
  });

  it('keeps the read time of the status it applies, for the next read to be judged by', async () => {
    seed(1, 'submitted');
    await applyTicketStatus(deps(), helpdeskRead({ status: 'open' }));
    expect(requests.items.get(id(1))!.ticket).toMatchObject({ status: 'open', statusVerified: true, statusReadAt: READ_AT });
  });
});
