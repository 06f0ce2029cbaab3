import { addMinutes } from './clock.ts';
import { ApiError, illegalTransition } from './errors.ts';
import { sameDigest } from './hashing.ts';
import type { HandoffRequest, SubjectVerification, VerificationMode } from './model.ts';
import { aRequestWhoseStatusIs } from './model.ts';

/**
 * The subject's side of the state machine: opening the link, proving who they are, submitting
 * the sealed credential; and expiry. SPEC.md leaves these transitions to the service.
 */
export const MAX_FAILED_ATTEMPTS = 5;
export const MAX_EMAIL_CODES = 5;
export const EMAIL_CODE_LIFETIME_MINUTES = 10;

export const NO_VERIFICATION: SubjectVerification = {
  failedAttempts: 0,
  challengePassed: false,
  emailPassed: false,
  emailCodeHash: null,
  emailCodeExpiresAt: null,
  emailCodesSent: 0,
  passHash: null,
};

export const verificationOf = (request: HandoffRequest): SubjectVerification => request.verification ?? NO_VERIFICATION;

/** Whether the caller presented the pass the request's verification was last issued to (by its hash). */
export const holdsCurrentPass = (request: HandoffRequest, passHash: string | null) => {
  const stored = verificationOf(request).passHash;
  return Boolean(stored && passHash && sameDigest(stored, passHash));
};

/**
 * The verification as it stands for one caller: the codes passed count only for the browser that
 * holds the current subject pass. Anyone else (the link alone, a stale pass) has passed nothing,
 * with the attempts and emailed code as stored.
 */
export const verificationFor = (request: HandoffRequest, passHash: string | null): SubjectVerification => {
  const v = verificationOf(request);
  return holdsCurrentPass(request, passHash) ? v : { ...v, challengePassed: false, emailPassed: false };
};

export const verificationPassed = (mode: VerificationMode, v: SubjectVerification) => {
  switch (mode) {
    case 'none':
      return true;
    case 'challenge':
      return v.challengePassed;
    case 'email_otp':
      return v.emailPassed;
    case 'either':
      return v.challengePassed || v.emailPassed;
    case 'both':
      return v.challengePassed && v.emailPassed;
  }
};

/**
 * Every code the link may email has been sent and none is left to type, in a mode that cannot pass
 * without one, and no browser has passed the emailed step: the link can no longer lead to a
 * submission (`needs_relink`). In mode `either` the spoken code still can.
 */
export const emailCodesUsedUp = (request: HandoffRequest, now: Date) => {
  const v = verificationOf(request);
  const emailRequired = request.verificationMode === 'email_otp' || request.verificationMode === 'both';
  const codeLeft = v.emailCodeHash !== null && v.emailCodeExpiresAt !== null && Date.parse(v.emailCodeExpiresAt) > now.getTime();
  return emailRequired && !v.emailPassed && v.emailCodesSent >= MAX_EMAIL_CODES && !codeLeft;
};

export const isLocked = (request: HandoffRequest) => verificationOf(request).failedAttempts >= MAX_FAILED_ATTEMPTS;

export type ClosedReason = 'submitted' | 'completed' | 'revoked' | 'expired' | 'locked' | 'replaced';

/** Why the link can no longer be used, or null while the subject may go on. */
export const linkClosedReason = (request: HandoffRequest, now: Date): ClosedReason | null => {
  if (request.status === 'submitted' || request.status === 'completed' || request.status === 'revoked' || request.status === 'expired') {
    return request.status;
  }
  if (request.linkExpiresAt && new Date(request.linkExpiresAt) <= now) return 'expired';
  if (isLocked(request)) return 'locked';
  return null;
};

export const linkClosed = (reason: ClosedReason) =>
  new ApiError(410, 'link_closed', LINK_CLOSED_MESSAGES[reason], undefined, {}, { extra: { reason } });

const LINK_CLOSED_MESSAGES: Record<ClosedReason, string> = {
  submitted: 'This link has already been used: the credential was sent.',
  completed: 'This request is finished and the credential has been destroyed.',
  revoked: 'The person who sent this link has withdrawn it.',
  expired: 'This link has expired. Ask the person who sent it for a new one.',
  locked: 'Too many wrong codes were entered, so this link is locked. Ask the person who sent it for a new one.',
  replaced: 'This link has been replaced by a newer one and no longer works. Use the most recent link you were sent, or ask the person who sent it.',
};

/** Whether a link whose token hashes to `tokenHash` is the request's current one (not replaced by a relink). */
export const isCurrentLink = (request: HandoffRequest, tokenHash: string) => !request.linkTokenHash || request.linkTokenHash === tokenHash;

/** pending → opened, once; an opened request stays as it is. */
export const open = (request: HandoffRequest, at: string): HandoffRequest | null =>
  request.status === 'pending' ? { ...request, status: 'opened', openedAt: at, updatedAt: at } : null;

/** pending or opened → submitted; the record is kept for the request's TTL. */
export const submit = (request: HandoffRequest, now: Date, attachmentsCount: number): HandoffRequest => {
  if (request.status !== 'pending' && request.status !== 'opened') {
    throw illegalTransition(`${aRequestWhoseStatusIs(request.status)} cannot take a submission.`);
  }
  const at = now.toISOString();
  return {
    ...request,
    status: 'submitted',
    openedAt: request.openedAt ?? at,
    submittedAt: at,
    recordExpiresAt: addMinutes(now, request.ttlMinutes).toISOString(),
    attachmentsCount,
    updatedAt: at,
  };
};

/** When the request expires if nothing else happens first, or null once it has ended. */
export const dueAt = (request: HandoffRequest): string | null => {
  if (request.status === 'pending' || request.status === 'opened') return request.linkExpiresAt;
  if (request.status === 'submitted') return request.recordExpiresAt;
  return null;
};

/**
 * When the sweep must look at the request: its expiry, or a ticket-close purge scheduled before
 * it (the sweep re-drives a purge whose schedule was lost, as it does an expiry).
 */
export const sweepDueAt = (request: HandoffRequest): string | null => {
  const due = dueAt(request);
  const purge = request.status === 'submitted' ? request.purgeScheduledAt : null;
  if (purge && (!due || purge < due)) return purge;
  return due;
};

/** The expired request if it is due at `now`, else null (nothing to do). */
export const expire = (request: HandoffRequest, now: Date): HandoffRequest | null => {
  const due = dueAt(request);
  if (!due || new Date(due) > now) return null;
  const at = now.toISOString();
  return { ...request, status: 'expired', purgeReason: 'expired', purgeScheduledAt: null, updatedAt: at };
};

/** A recipient revealed the credential: counted, and the time kept. */
export const reveal = (request: HandoffRequest, at: string): HandoffRequest => {
  if (request.status !== 'submitted') throw illegalTransition(`${aRequestWhoseStatusIs(request.status)} has nothing to reveal.`);
  return { ...request, revealCount: request.revealCount + 1, lastRevealedAt: at, updatedAt: at };
};
