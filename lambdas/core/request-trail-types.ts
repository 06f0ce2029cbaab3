/**
 * Every audit type a request's trail can hold: what its creation, its subject, its members, its
 * ticket and its end write about it. The member application labels each one (its request page
 * shows the trail), and the test run's end-of-run check fails on a stored entry about a request
 * whose type is not listed here, so a new kind of entry cannot reach the page unnamed.
 */
export const REQUEST_TRAIL_TYPES = [
  'request.created',
  'request.link_posted',
  'request.link_post_failed',
  'request.opened',
  'subject.email_code_sent',
  'subject.verified',
  'subject.verification_failed',
  'request.link_locked',
  'request.email_codes_used_up',
  'request.submitted',
  'request.revealed',
  'request.reported',
  'ticket.status_received',
  'request.purge_scheduled',
  'request.purge_cancelled',
  'request.completed',
  'credential.rotation_recommended',
  'request.revoked',
  'request.expired',
  'request.relinked',
  'request.needs_relink',
  'request.recipient_key_changed',
  'request.unrecoverable',
  'request.recoverable',
] as const;

export type RequestTrailType = (typeof REQUEST_TRAIL_TYPES)[number];
