/**
 * A share: a one-time handover from a member to someone outside the organisation (DESIGN.md,
 * Shares). The member's browser seals the credential to a one-time recipient key whose private
 * half travels only in the link's fragment; the service keeps the ciphertext, the sealed-to
 * fingerprint, an optional ticket reference, an expiry and a view limit.
 *
 * States: `active` (the link opens it) until the last allowed view, the expiry, a trusted ticket
 * close or the member purges it; then `purged` or `expired`, and the ciphertext is gone.
 */
export const SHARE_STATUSES = ['active', 'purged', 'expired'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

/** Why a share's ciphertext was destroyed. */
export const SHARE_END_REASONS = ['view_limit_reached', 'expired', 'ticket_closed', 'purged_by_member'] as const;
export type ShareEndReason = (typeof SHARE_END_REASONS)[number];

export const SHARE_LIMITS = {
  viewLimit: { min: 1, max: 10, default: 1 },
  expiresInMinutes: { min: 5, max: 43_200, default: 1_440 },
  label: { max: 120 },
  /** The sealed envelope's JSON, at most (a credential, not a file share). */
  envelopeBytes: 64 * 1024,
} as const;

export interface Share {
  id: string;
  orgId: string;
  status: ShareStatus;
  /** A note for the member's list ("VPN for Dana at Acme"); never the credential. */
  label: string | null;
  ticketRef: string | null;
  createdBy: { membershipId: string; name: string | null; email: string | null };
  /** SHA-256 hex of the one-time recipient key's SPKI DER. */
  sealedToFingerprint: string;
  viewLimit: number;
  views: number;
  expiresAt: string;
  createdAt: string;
  lastViewedAt: string | null;
  endedAt: string | null;
  endReason: ShareEndReason | null;
  /** A trusted ticket close with a grace period destroys it at this time. */
  purgeScheduledAt: string | null;
  updatedAt: string;
  version: number;
}

export const isShareLive = (share: Share) => share.status === 'active';

/** The share after one view; the last allowed view ends it. */
export const viewed = (share: Share, at: string): Share => {
  const views = share.views + 1;
  const last = views >= share.viewLimit;
  return {
    ...share,
    views,
    lastViewedAt: at,
    updatedAt: at,
    ...(last ? { status: 'purged' as const, endedAt: at, endReason: 'view_limit_reached' as const, purgeScheduledAt: null } : {}),
  };
};

export const ended = (share: Share, at: string, reason: ShareEndReason): Share => ({
  ...share,
  status: reason === 'expired' ? 'expired' : 'purged',
  endedAt: at,
  endReason: reason,
  purgeScheduledAt: null,
  updatedAt: at,
});

/** The share as the member app, the API and audit entries show it: never the ciphertext or the link. */
export const toShareView = (share: Share) => ({
  id: share.id,
  object: 'share' as const,
  status: share.status,
  label: share.label,
  ticket_ref: share.ticketRef,
  created_by: { membership_id: share.createdBy.membershipId, name: share.createdBy.name, email: share.createdBy.email },
  sealed_to_fingerprint: share.sealedToFingerprint,
  view_limit: share.viewLimit,
  views: share.views,
  expires_at: share.expiresAt,
  created_at: share.createdAt,
  last_viewed_at: share.lastViewedAt,
  ended_at: share.endedAt,
  end_reason: share.endReason,
  purge_scheduled_at: share.purgeScheduledAt,
});
export type ShareView = ReturnType<typeof toShareView>;
