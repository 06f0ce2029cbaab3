import { illegalTransition } from './errors.ts';
import type { HandoffRequest, RequestStatus } from './model.ts';

/**
 * The request state machine's API-driven transitions (SPEC.md, States and transitions).
 * Each returns the changed request; the caller stores it with its audit entry.
 */
const REVOCABLE: RequestStatus[] = ['pending', 'opened'];
const COMPLETABLE: RequestStatus[] = ['submitted'];

export const revoke = (request: HandoffRequest, at: string, reason: string | null): HandoffRequest => {
  if (!REVOCABLE.includes(request.status)) {
    throw illegalTransition(`A ${request.status} request cannot be revoked; only pending or opened ones can.`);
  }
  return { ...request, status: 'revoked', revokedAt: at, revokedReason: reason, updatedAt: at };
};

export const complete = (request: HandoffRequest, at: string, purgeReason: string): HandoffRequest => {
  if (!COMPLETABLE.includes(request.status)) {
    throw illegalTransition(`A ${request.status} request cannot be completed; only submitted ones can.`);
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
