import { describe, expect, it } from 'vitest';
import type { Policy, TicketStatus } from '../../lambdas/core/model.ts';
import { DEFAULT_POLICY } from '../../lambdas/core/policy.ts';
import type { TicketAction } from '../../lambdas/core/ticket-lifecycle.ts';
import type { TicketStatusOutcome } from '../../lambdas/core/use-cases/tickets/apply-ticket-status.ts';
import { ticketStatusNote } from '../../lambdas/core/use-cases/tickets/status-note.ts';

const DEADLINE = '2025-03-04T05:36:07.000Z';
const policy = (overrides: Partial<Policy['ticket']> = {}): Policy['ticket'] => ({ ...structuredClone(DEFAULT_POLICY.ticket), ...overrides });
const ONLY_CLOSED = policy({ closeStatuses: ['closed'] });

let counter = 0;
const outcome = (actions: TicketAction[], options: { trusted?: boolean; links?: number } = {}): TicketStatusOutcome => ({
  ticketLinks: options.links ?? actions.length,
  verifying: 0,
  changed: actions.map((action) => ({
    requestId: `01hrequest${String(++counter).padStart(16, '0')}`,
    action,
    purgeScheduledAt: action === 'purge_scheduled' ? DEADLINE : null,
  })),
  trusted: options.trusted ?? true,
  shares: [],
});

describe('ticketStatusNote', () => {
  it('no request within the scope', () => {
    expect(ticketStatusNote(outcome([], { links: 0 }), 'closed', policy())).toBe(
      "No request within this key's scope quotes or links this ticket, so nothing changed.",
    );
  });

  it('shares quoting the ticket: destroyed by a trusted close, only matched otherwise, beside the requests', () => {
    const shares = (n: number) => Array.from({ length: n }, (_, i) => `01hshare${String(i).padStart(18, '0')}`);
    expect(ticketStatusNote({ ...outcome([], { links: 0 }), shares: shares(1) }, 'closed', policy())).toBe('Destroyed 1 share quoting this ticket.');
    expect(ticketStatusNote({ ...outcome([], { links: 0, trusted: false }), shares: shares(2) }, 'closed', policy())).toBe(
      'Matched 2 shares quoting this ticket (nothing destroyed).',
    );
    expect(ticketStatusNote({ ...outcome(['completed']), shares: shares(1) }, 'closed', policy())).toBe(
      'Destroyed the stored credential of 1 request and completed it. Destroyed 1 share quoting this ticket.',
    );
    expect(ticketStatusNote({ ...outcome([], { links: 0 }), shares: shares(1) }, 'open', policy())).toBe('Matched 1 share quoting this ticket (nothing destroyed).');
  });

  it('every linked request has ended', () => {
    expect(ticketStatusNote(outcome([], { links: 3 }), 'closed', policy())).toBe(
      'Every request linked to this ticket has already ended, so nothing changed.',
    );
  });

  it.each([
    [['recorded'], 'closed', policy(), '1 request'],
    [['recorded', 'recorded'], 'resolved', policy(), '2 requests'],
  ] as Array<[TicketAction[], TicketStatus, Policy['ticket'], string]>)('an untrusted close: %j %s', (actions, status, ticketPolicy, requests) => {
    expect(ticketStatusNote(outcome(actions, { trusted: false }), status, ticketPolicy)).toBe(
      `Recorded the status on ${requests}; nothing was destroyed because the organisation does not trust unverified ticket statuses (the ticket policy\u2019s trust_unverified_webhooks, \u201cTrust unverified ticket webhooks\u201d in the application, is off).`,
    );
  });

  it('resolved not counted as closed (trusted or not)', () => {
    const sentence = "Recorded the status on 2 requests; the organisation's policy does not count resolved as closed, so nothing was destroyed.";
    expect(ticketStatusNote(outcome(['recorded', 'recorded']), 'resolved', ONLY_CLOSED)).toBe(sentence);
    expect(ticketStatusNote(outcome(['recorded', 'recorded'], { trusted: false }), 'resolved', ONLY_CLOSED)).toBe(sentence);
  });

  it('closed never counted (an empty close list) names closed', () => {
    expect(ticketStatusNote(outcome(['recorded']), 'closed', policy({ closeStatuses: [] }))).toBe(
      "Recorded the status on 1 request; the organisation's policy does not count closed as closed, so nothing was destroyed.",
    );
  });

  it.each(['open', 'pending', 'unknown'] as TicketStatus[])('a %s status that changed nothing else is simply recorded, trusted or not', (status) => {
    expect(ticketStatusNote(outcome(['recorded'], { trusted: false }), status, policy())).toBe('Recorded the status on 1 request.');
    expect(ticketStatusNote(outcome(['recorded', 'recorded']), status, policy())).toBe('Recorded the status on 2 requests.');
  });

  it('a trusted close that only recorded (unsubmitted requests kept, or a second close) says so plainly', () => {
    expect(ticketStatusNote(outcome(['recorded', 'recorded']), 'closed', policy())).toBe('Recorded the status on 2 requests.');
  });

  it.each([
    [['completed'], 'Destroyed the stored credential of 1 request and completed it.'],
    [['completed', 'completed'], 'Destroyed the stored credential of 2 requests and completed them.'],
    [['purge_scheduled'], `Scheduled the destruction of 1 request at ${DEADLINE} (the grace period).`],
    [['purge_scheduled', 'purge_scheduled', 'purge_scheduled'], `Scheduled the destruction of 3 requests at ${DEADLINE} (the grace period).`],
    [['revoked'], 'Revoked 1 request not yet submitted.'],
    [['revoked', 'revoked'], 'Revoked 2 requests not yet submitted.'],
    [['completed', 'recorded'], 'Destroyed the stored credential of 1 request and completed it; recorded the status on 1 request more.'],
    [['completed', 'revoked', 'recorded', 'recorded'], 'Destroyed the stored credential of 1 request and completed it; revoked 1 request not yet submitted; recorded the status on 2 requests more.'],
    [['revoked', 'purge_scheduled', 'completed'], `Destroyed the stored credential of 1 request and completed it; scheduled the destruction of 1 request at ${DEADLINE} (the grace period); revoked 1 request not yet submitted.`],
    [['purge_scheduled', 'recorded'], `Scheduled the destruction of 1 request at ${DEADLINE} (the grace period); recorded the status on 1 request more.`],
  ] as Array<[TicketAction[], string]>)('trusted close %j', (actions, sentence) => {
    expect(ticketStatusNote(outcome(actions), 'closed', policy())).toBe(sentence);
  });

  it.each([
    [['purge_cancelled'], 'Cancelled the scheduled destruction of 1 request.'],
    [['purge_cancelled', 'purge_cancelled'], 'Cancelled the scheduled destruction of 2 requests.'],
    [['purge_cancelled', 'recorded'], 'Cancelled the scheduled destruction of 1 request; recorded the status on 1 request more.'],
    [['recorded', 'purge_cancelled', 'recorded'], 'Cancelled the scheduled destruction of 1 request; recorded the status on 2 requests more.'],
  ] as Array<[TicketAction[], string]>)('a reopen %j, even from an untrusted sender', (actions, sentence) => {
    expect(ticketStatusNote(outcome(actions, { trusted: false }), 'open', policy())).toBe(sentence);
    expect(ticketStatusNote(outcome(actions), 'pending', policy())).toBe(sentence);
  });

  it('resolved counted as closed completes, with the default policy', () => {
    expect(ticketStatusNote(outcome(['completed']), 'resolved', policy())).toBe('Destroyed the stored credential of 1 request and completed it.');
  });

  it('ended requests beside changed ones do not appear in the sentence', () => {
    expect(ticketStatusNote(outcome(['completed'], { links: 5 }), 'closed', policy())).toBe('Destroyed the stored credential of 1 request and completed it.');
  });
});
