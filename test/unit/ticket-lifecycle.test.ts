import { describe, expect, it } from 'vitest';
import type { HandoffRequest, Policy, RequestStatus, TicketStatus } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import { countsAsClosed, decideTicketChange, TICKET_CLOSED, type TicketAction } from '../../lambdas/core/ticket-lifecycle.ts';
import { FIXED_NOW, makeRequest } from './support/fakes.ts';

/** FIXED_NOW is 2025-03-04T05:06:07.000Z. */
const NOW = FIXED_NOW.toISOString();
const NOW_PLUS_30 = '2025-03-04T05:36:07.000Z';
/** A deadline a first close set earlier (grace 30 at 05:00:00). */
const EARLIER_DEADLINE = '2025-03-04T05:30:00.000Z';
const BEFORE = '2025-03-01T00:00:00.000Z';

const ticketPolicy = (overrides: Partial<Policy['ticket']> = {}): Policy['ticket'] => ({ ...structuredClone(DEFAULT_POLICY.ticket), ...overrides });

/** A request as it stands in `status`, nothing ended or scheduled unless the status says so. */
const requestIn = (status: RequestStatus, overrides: Partial<HandoffRequest> = {}): HandoffRequest =>
  makeRequest({
    status,
    ticket: { ref: 'INC-42', url: 'https://tickets.test/INC-42', externalId: 'ext-42', integrationId: '01hintegration000000000001', status: 'open', statusVerified: false, statusAt: BEFORE },
    openedAt: status === 'pending' ? null : '2025-03-01T01:00:00.000Z',
    submittedAt: ['pending', 'opened'].includes(status) ? null : '2025-03-01T02:00:00.000Z',
    recordExpiresAt: ['pending', 'opened'].includes(status) ? null : '2025-03-05T02:00:00.000Z',
    revealCount: 0,
    lastRevealedAt: null,
    purgeReason: status === 'completed' ? 'completed_via_api' : status === 'expired' ? 'expired' : null,
    revokedReason: status === 'revoked' ? 'revoked_via_api' : null,
    completedAt: status === 'completed' ? BEFORE : null,
    revokedAt: status === 'revoked' ? BEFORE : null,
    purgeScheduledAt: null,
    updatedAt: BEFORE,
    version: 5,
    ...overrides,
  });

const REQUEST_STATUSES: RequestStatus[] = ['pending', 'opened', 'submitted', 'completed', 'revoked', 'expired'];
const TICKET_STATUSES: TicketStatus[] = ['open', 'pending', 'resolved', 'closed', 'unknown'];
const CLOSE_SETS: Array<Policy['ticket']['closeStatuses']> = [['closed'], ['resolved', 'closed']];

interface Case {
  requestStatus: RequestStatus;
  ticketStatus: TicketStatus;
  trusted: boolean;
  grace: number;
  revokeUnsubmittedOnClose: boolean;
  closeStatuses: Policy['ticket']['closeStatuses'];
  /** Whether a purge was already scheduled (only meaningful for a submitted request). */
  scheduled: boolean;
}

const cases: Case[] = [];
for (const requestStatus of REQUEST_STATUSES)
  for (const ticketStatus of TICKET_STATUSES)
    for (const trusted of [true, false])
      for (const grace of [0, 30])
        for (const revokeUnsubmittedOnClose of [false, true])
          for (const closeStatuses of CLOSE_SETS)
            for (const scheduled of requestStatus === 'submitted' ? [false, true] : [false])
              cases.push({ requestStatus, ticketStatus, trusted, grace, revokeUnsubmittedOnClose, closeStatuses, scheduled });

/**
 * The expected outcome, spelled out from SPEC.md's ticket rows rather than from the code:
 * what the action is, and which fields beyond the ticket and updatedAt change.
 */
const expected = (c: Case): { action: TicketAction; purgeMaterial: boolean; changes: Partial<HandoffRequest> } | null => {
  if (c.requestStatus === 'completed' || c.requestStatus === 'revoked' || c.requestStatus === 'expired') return null;
  const closes = c.trusted && (c.ticketStatus === 'closed' || (c.ticketStatus === 'resolved' && c.closeStatuses.length === 2));
  if (c.requestStatus === 'submitted') {
    if (closes && c.grace === 0) {
      return {
        action: 'completed',
        purgeMaterial: true,
        changes: { status: 'completed', completedAt: NOW, purgeReason: 'ticket_closed', purgeScheduledAt: null },
      };
    }
    if (closes && !c.scheduled) return { action: 'purge_scheduled', purgeMaterial: false, changes: { purgeScheduledAt: NOW_PLUS_30 } };
    if (closes && c.scheduled) return { action: 'recorded', purgeMaterial: false, changes: {} };
    if (c.scheduled && (c.ticketStatus === 'open' || c.ticketStatus === 'pending')) {
      return { action: 'purge_cancelled', purgeMaterial: false, changes: { purgeScheduledAt: null } };
    }
    return { action: 'recorded', purgeMaterial: false, changes: {} };
  }
  if (closes && c.revokeUnsubmittedOnClose) {
    return { action: 'revoked', purgeMaterial: false, changes: { status: 'revoked', revokedAt: NOW, revokedReason: 'ticket_closed' } };
  }
  return { action: 'recorded', purgeMaterial: false, changes: {} };
};

const title = (c: Case) =>
  `${c.requestStatus}${c.scheduled ? ' (purge scheduled)' : ''} + ${c.ticketStatus}, ${c.trusted ? 'trusted' : 'untrusted'}, grace ${c.grace}, ` +
  `revokeUnsubmitted ${c.revokeUnsubmittedOnClose}, close [${c.closeStatuses.join(',')}]`;

describe('decideTicketChange: the whole table', () => {
  it('covers every combination', () => {
    // (5 request statuses once, submitted twice: with and without a scheduled purge) × 5 ticket statuses × 2 × 2 × 2 × 2
    expect(cases).toHaveLength(7 * 5 * 2 * 2 * 2 * 2);
  });

  it.each(cases.map((c) => [title(c), c] as const))('%s', (_title, c) => {
    const request = requestIn(c.requestStatus, c.scheduled ? { purgeScheduledAt: EARLIER_DEADLINE } : {});
    const snapshot = structuredClone(request);
    const policy = ticketPolicy({ gracePeriodMinutes: c.grace, revokeUnsubmittedOnClose: c.revokeUnsubmittedOnClose, closeStatuses: c.closeStatuses });
    const decision = decideTicketChange(request, { status: c.ticketStatus, verified: c.trusted, trusted: c.trusted }, policy, FIXED_NOW);
    const want = expected(c);

    // The input is never mutated.
    expect(request).toEqual(snapshot);
    if (!want) {
      expect(decision).toBeNull();
      return;
    }
    expect(decision).not.toBeNull();
    expect(decision!.action).toBe(want.action);
    expect(decision!.purgeMaterial).toBe(want.purgeMaterial);
    expect(decision!.after).toEqual({
      ...snapshot,
      ticket: {
        ref: 'INC-42',
        url: 'https://tickets.test/INC-42',
        externalId: 'ext-42',
        integrationId: '01hintegration000000000001',
        status: c.ticketStatus,
        statusVerified: c.trusted,
        statusAt: NOW,
      },
      updatedAt: NOW,
      ...want.changes,
    });
  });
});

describe('decideTicketChange: named cases', () => {
  const trustedClose = { status: 'closed' as const, verified: true, trusted: true };

  it('a trusted close of a submitted request with no grace completes it with purge_reason ticket_closed and purges the material', () => {
    const decision = decideTicketChange(requestIn('submitted'), trustedClose, ticketPolicy(), FIXED_NOW)!;
    expect(decision.action).toBe('completed');
    expect(decision.purgeMaterial).toBe(true);
    expect(decision.after).toMatchObject({ status: 'completed', purgeReason: TICKET_CLOSED, completedAt: NOW, purgeScheduledAt: null });
    expect(TICKET_CLOSED).toBe('ticket_closed');
  });

  it('with a grace period of 30 minutes, schedules the purge at now + 30 minutes and keeps the request submitted', () => {
    const decision = decideTicketChange(requestIn('submitted'), trustedClose, ticketPolicy({ gracePeriodMinutes: 30 }), FIXED_NOW)!;
    expect(decision).toMatchObject({ action: 'purge_scheduled', purgeMaterial: false });
    expect(decision.after.status).toBe('submitted');
    expect(decision.after.purgeScheduledAt).toBe('2025-03-04T05:36:07.000Z');
    expect(decision.after.completedAt).toBeNull();
    expect(decision.after.purgeReason).toBeNull();
  });

  it('a second close inside the window keeps the first deadline, even later on', () => {
    const policy = ticketPolicy({ gracePeriodMinutes: 30 });
    const first = decideTicketChange(requestIn('submitted'), trustedClose, policy, FIXED_NOW)!;
    const later = new Date(FIXED_NOW.getTime() + 20 * 60_000);
    const second = decideTicketChange(first.after, trustedClose, policy, later)!;
    expect(second.action).toBe('recorded');
    expect(second.after.purgeScheduledAt).toBe(NOW_PLUS_30);
    expect(second.after.ticket!.statusAt).toBe(later.toISOString());
    // A resolved (counted) close does not move it either.
    const third = decideTicketChange(second.after, { status: 'resolved', verified: true, trusted: true }, policy, later)!;
    expect(third.action).toBe('recorded');
    expect(third.after.purgeScheduledAt).toBe(NOW_PLUS_30);
  });

  it.each(['open', 'pending'] as TicketStatus[])('%s cancels a scheduled purge, trusted or not', (status) => {
    for (const trusted of [true, false]) {
      const decision = decideTicketChange(requestIn('submitted', { purgeScheduledAt: EARLIER_DEADLINE }), { status, verified: false, trusted }, ticketPolicy({ gracePeriodMinutes: 30 }), FIXED_NOW)!;
      expect(decision).toMatchObject({ action: 'purge_cancelled', purgeMaterial: false });
      expect(decision.after.purgeScheduledAt).toBeNull();
      expect(decision.after.status).toBe('submitted');
    }
  });

  it.each(['open', 'pending'] as TicketStatus[])('%s after the window has ended leaves the due purge standing (its trigger may be late)', (status) => {
    const policy = ticketPolicy({ gracePeriodMinutes: 30 });
    for (const at of [new Date(EARLIER_DEADLINE), new Date('2025-03-04T05:31:00.000Z')]) {
      const decision = decideTicketChange(requestIn('submitted', { purgeScheduledAt: EARLIER_DEADLINE }), { status, verified: false, trusted: true }, policy, at)!;
      expect(decision.action).toBe('recorded');
      expect(decision.after.purgeScheduledAt).toBe(EARLIER_DEADLINE);
      expect(decision.after.ticket?.status).toBe(status);
    }
  });

  it('a reopen then a new close schedules a fresh deadline from the new close', () => {
    const policy = ticketPolicy({ gracePeriodMinutes: 30 });
    const reopened = decideTicketChange(requestIn('submitted', { purgeScheduledAt: EARLIER_DEADLINE }), { status: 'open', verified: true, trusted: true }, policy, FIXED_NOW)!;
    const later = new Date('2025-03-04T06:00:00.000Z');
    const closed = decideTicketChange(reopened.after, trustedClose, policy, later)!;
    expect(closed.action).toBe('purge_scheduled');
    expect(closed.after.purgeScheduledAt).toBe('2025-03-04T06:30:00.000Z');
  });

  it('unknown and resolved (not counted) neither cancel nor schedule', () => {
    const policy = ticketPolicy({ gracePeriodMinutes: 30, closeStatuses: ['closed'] });
    for (const status of ['unknown', 'resolved'] as TicketStatus[]) {
      const decision = decideTicketChange(requestIn('submitted', { purgeScheduledAt: EARLIER_DEADLINE }), { status, verified: true, trusted: true }, policy, FIXED_NOW)!;
      expect(decision.action).toBe('recorded');
      expect(decision.after.purgeScheduledAt).toBe(EARLIER_DEADLINE);
    }
  });

  it.each(['pending', 'opened'] as RequestStatus[])('a trusted close revokes a %s request only when the policy says so', (status) => {
    const revoked = decideTicketChange(requestIn(status), trustedClose, ticketPolicy({ revokeUnsubmittedOnClose: true, gracePeriodMinutes: 30 }), FIXED_NOW)!;
    expect(revoked).toMatchObject({ action: 'revoked', purgeMaterial: false });
    expect(revoked.after).toMatchObject({ status: 'revoked', revokedReason: 'ticket_closed', revokedAt: NOW, purgeScheduledAt: null });
    const kept = decideTicketChange(requestIn(status), trustedClose, ticketPolicy({ revokeUnsubmittedOnClose: false }), FIXED_NOW)!;
    expect(kept.action).toBe('recorded');
    expect(kept.after.status).toBe(status);
  });

  it.each(['completed', 'revoked', 'expired'] as RequestStatus[])('leaves a %s request alone (null) whatever the status', (status) => {
    for (const ticketStatus of TICKET_STATUSES) {
      expect(decideTicketChange(requestIn(status), { status: ticketStatus, verified: true, trusted: true }, ticketPolicy({ revokeUnsubmittedOnClose: true }), FIXED_NOW)).toBeNull();
    }
  });

  it('the ticket records the status, whether it was verified, and when, keeping the link fields', () => {
    const decision = decideTicketChange(requestIn('opened'), { status: 'pending', verified: false, trusted: true }, ticketPolicy(), FIXED_NOW)!;
    expect(decision.after.ticket).toEqual({
      ref: 'INC-42',
      url: 'https://tickets.test/INC-42',
      externalId: 'ext-42',
      integrationId: '01hintegration000000000001',
      status: 'pending',
      statusVerified: false,
      statusAt: NOW,
    });
    expect(decision.after.updatedAt).toBe(NOW);
    expect(decision.after.version).toBe(5);
  });

  it('trusted but unverified (the organisation trusts unverified statuses) destroys and records statusVerified false', () => {
    const decision = decideTicketChange(requestIn('submitted'), { status: 'closed', verified: false, trusted: true }, ticketPolicy(), FIXED_NOW)!;
    expect(decision.action).toBe('completed');
    expect(decision.after.ticket!.statusVerified).toBe(false);
  });

  it('verified but not trusted (impossible from the use case, but the flag that counts is trusted) destroys nothing', () => {
    const decision = decideTicketChange(requestIn('submitted'), { status: 'closed', verified: true, trusted: false }, ticketPolicy(), FIXED_NOW)!;
    expect(decision.action).toBe('recorded');
    expect(decision.after.ticket!.statusVerified).toBe(true);
  });

  it('a request with no ticket gets a ticket carrying only the status', () => {
    const decision = decideTicketChange(requestIn('pending', { ticket: null }), { status: 'open', verified: false, trusted: false }, ticketPolicy(), FIXED_NOW)!;
    expect(decision.after.ticket).toEqual({ ref: null, url: null, externalId: null, integrationId: null, status: 'open', statusVerified: false, statusAt: NOW });
  });

  it('a negative grace period counts as none', () => {
    const decision = decideTicketChange(requestIn('submitted'), trustedClose, ticketPolicy({ gracePeriodMinutes: -5 }), FIXED_NOW)!;
    expect(decision.action).toBe('completed');
  });

  it('a trusted close with no grace completes a request that still had a purge scheduled, clearing the deadline', () => {
    const decision = decideTicketChange(requestIn('submitted', { purgeScheduledAt: EARLIER_DEADLINE }), trustedClose, ticketPolicy({ gracePeriodMinutes: 0 }), FIXED_NOW)!;
    expect(decision).toMatchObject({ action: 'completed', purgeMaterial: true });
    expect(decision.after.purgeScheduledAt).toBeNull();
  });
});

describe('countsAsClosed', () => {
  it.each([
    ['closed', ['closed'], true],
    ['resolved', ['closed'], false],
    ['closed', ['resolved', 'closed'], true],
    ['resolved', ['resolved', 'closed'], true],
    ['open', ['resolved', 'closed'], false],
    ['pending', ['resolved', 'closed'], false],
    ['unknown', ['resolved', 'closed'], false],
    ['closed', [], false],
  ] as Array<[TicketStatus, Policy['ticket']['closeStatuses'], boolean]>)('%s with [%s] → %s', (status, closeStatuses, result) => {
    expect(countsAsClosed(status, ticketPolicy({ closeStatuses }))).toBe(result);
  });

  it('the default policy counts resolved and closed', () => {
    expect(DEFAULT_POLICY.ticket.closeStatuses).toEqual(['resolved', 'closed']);
    expect(countsAsClosed('resolved', DEFAULT_POLICY.ticket)).toBe(true);
  });
});
