import type { Policy, TicketStatus } from '../../model.ts';
import { countsAsClosed, type TicketAction } from '../../ticket-lifecycle.ts';
import type { TicketStatusOutcome } from './apply-ticket-status.ts';

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

/** One sentence that says what a ticket status did, for the acceptance's `note`. */
export const ticketStatusNote = (outcome: TicketStatusOutcome, status: TicketStatus, policy: Policy['ticket']): string => {
  const requestsNote = requestNote(outcome, status, policy);
  const shares = outcome.shares.length;
  if (shares === 0) return requestsNote;
  const destroyed = outcome.trusted && countsAsClosed(status, policy);
  const sharesNote = `${destroyed ? 'Destroyed' : 'Matched'} ${shares} share${shares === 1 ? '' : 's'} quoting this ticket${destroyed ? '' : ' (nothing destroyed)'}.`;
  return outcome.ticketLinks === 0 ? sharesNote : `${requestsNote} ${sharesNote}`;
};

const requestNote = (outcome: TicketStatusOutcome, status: TicketStatus, policy: Policy['ticket']): string => {
  if (outcome.ticketLinks === 0) return 'No request within this key\'s scope quotes or links this ticket, so nothing changed.';
  if (outcome.changed.length === 0) return 'Every request linked to this ticket has already ended, so nothing changed.';
  const count = (action: TicketAction) => outcome.changed.filter((change) => change.action === action).length;
  const recorded = count('recorded');
  const verifying = outcome.verifying > 0 ? ` ${requests(outcome.verifying)} ${outcome.verifying === 1 ? 'is' : 'are'} linked through a connected helpdesk, which is read now: only a close it confirms destroys anything.` : '';
  if (outcome.verifying > 0 && outcome.verifying === outcome.changed.length) {
    return `Recorded the status on ${requests(recorded)}; nothing was destroyed yet.${verifying}`;
  }
  if (recorded === outcome.changed.length && countsAsClosed(status, policy) && !outcome.trusted) {
    return `Recorded the status on ${requests(recorded)}; nothing was destroyed because the organisation does not trust unverified ticket statuses (the ticket policy\u2019s trust_unverified_webhooks, \u201cTrust unverified ticket webhooks\u201d in the application, is off).`;
  }
  if (recorded === outcome.changed.length && (status === 'resolved' || status === 'closed') && !countsAsClosed(status, policy)) {
    return `Recorded the status on ${requests(recorded)}; the organisation's policy does not count ${status} as closed, so nothing was destroyed.`;
  }
  const parts: string[] = [];
  const completed = count('completed');
  if (completed) parts.push(`destroyed the stored credential of ${requests(completed)} and completed ${completed === 1 ? 'it' : 'them'}`);
  const scheduled = outcome.changed.filter((change) => change.action === 'purge_scheduled');
  if (scheduled.length) parts.push(`scheduled the destruction of ${requests(scheduled.length)} at ${scheduled[0].purgeScheduledAt} (the grace period)`);
  const revoked = count('revoked');
  if (revoked) parts.push(`revoked ${requests(revoked)} not yet submitted`);
  const cancelled = count('purge_cancelled');
  if (cancelled) parts.push(`cancelled the scheduled destruction of ${requests(cancelled)}`);
  if (recorded) parts.push(`recorded the status on ${requests(recorded)}${parts.length ? ' more' : ''}`);
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
};
