import { illegalTransition } from './errors.ts';
import type { HandoffRequest, RequestStatus } from './model.ts';
import { aRequestWhoseStatusIs } from './model.ts';
import { emailCodesUsedUp } from './subject-flow.ts';

/**
 * The request state machine's API-driven transitions (SPEC.md, States and transitions).
 * Each returns the changed request; the caller stores it with its audit entry.
 */
/**
 * Why a request ended, as its `purge_reason` (completed or expired) or `revoked_reason` records
 * it: a member, an API key or the operator ended it, its ticket closed, or its time ran out.
 */
export const REQUEST_END_REASONS = ['completed_by_member', 'completed_via_api', 'revoked_by_member', 'revoked_via_api', 'revoked_by_operator', 'ticket_closed', 'expired'] as const;
export type RequestEndReason = (typeof REQUEST_END_REASONS)[number];

const REVOCABLE: RequestStatus[] = ['pending', 'opened'];
const COMPLETABLE: RequestStatus[] = ['submitted'];

export const revoke = (request: HandoffRequest, at: string, reason: RequestEndReason | null): HandoffRequest => {
  if (!REVOCABLE.includes(request.status)) {
    throw illegalTransition(`${aRequestWhoseStatusIs(request.status)} cannot be revoked; only pending or opened ones can.`);
  }
  return { ...request, status: 'revoked', revokedAt: at, revokedReason: reason, updatedAt: at };
};

export const complete = (request: HandoffRequest, at: string, purgeReason: RequestEndReason): HandoffRequest => {
  if (!COMPLETABLE.includes(request.status)) {
    throw illegalTransition(`${aRequestWhoseStatusIs(request.status)} cannot be completed; only submitted ones can.`);
  }
  return {
    ...request,
    status: 'completed',
    completedAt: at,
    purgeReason,
    purgeScheduledAt: null,
    updatedAt: at,
  };
};

/**
 * Why a request may be given a new link, or null when it may not: a pending or opened one (its
 * link sent to the wrong person, locked by wrong codes, or unusable since a recipient's key
 * changed), a revoked one, or one that expired before anything was submitted. A credential that
 * was submitted is never asked for again on the same request.
 */
export const RELINK_CAUSES = ['locked', 'recipient_key_changed', 'email_codes_used_up', 'replaced', 'revoked', 'expired'] as const;
export type RelinkCause = (typeof RELINK_CAUSES)[number];

/**
 * `now` tells a link marked `needs_relink` because its emailed codes are all used up from one made
 * unusable by a recipient's new key; without it, a marked link is put down to the key.
 */
export const relinkCause = (request: HandoffRequest, locked: boolean, now?: Date): RelinkCause | null => {
  if (request.status === 'revoked') return 'revoked';
  if (request.status === 'expired') return request.submittedAt ? null : 'expired';
  if (request.status !== 'pending' && request.status !== 'opened') return null;
  if (locked) return 'locked';
  if (!request.needsRelink) return 'replaced';
  return now && emailCodesUsedUp(request, now) ? 'email_codes_used_up' : 'recipient_key_changed';
};

export interface NewLink {
  at: Date;
  linkLifetimeMinutes: number;
  tokenHash: string;
  challengeCodeHash: string | null;
  recipients: HandoffRequest['recipients'];
  commit: string;
  /** At least the organisation's minimum at the time of the new link (policy.ts strengthenedMode). */
  verificationMode: HandoffRequest['verificationMode'];
}

/** Back to pending with a new link: the old token dead, codes and verification progress forgotten, the link's lifetime restarted. */
export const relink = (request: HandoffRequest, link: NewLink): HandoffRequest => {
  const at = link.at.toISOString();
  return {
    ...request,
    status: 'pending',
    recipients: link.recipients,
    commit: link.commit,
    verificationMode: link.verificationMode,
    linkTokenHash: link.tokenHash,
    challengeCodeHash: link.challengeCodeHash,
    verification: undefined,
    needsRelink: false,
    // Committed to the recipients' keys as they are now: no change from them is recorded yet.
    keyChangesRecorded: undefined,
    openedAt: null,
    revokedAt: null,
    revokedReason: null,
    purgeReason: null,
    linkExpiresAt: new Date(link.at.getTime() + link.linkLifetimeMinutes * 60_000).toISOString(),
    updatedAt: at,
  };
};
