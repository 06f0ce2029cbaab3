import { forEachDuePage } from '../../due-pages.ts';
import { forEachLimited } from '../../each-limited.ts';
import { ApiError, notFound, WriteConflict } from '../../errors.ts';
import { RANDOM_TOKEN_PATTERN, sha256Hex } from '../../hashing.ts';
import type { Actor } from '../../model.ts';
import type { DuePaging } from '../../ports.ts';
import { ended, isShareLive, toShareView, viewed, type Share, type ShareEndReason } from '../../share.ts';
import { SHARE_EXPIRY_ACTOR, shareAuditEntry } from './share-audit.ts';
import type { ShareDeps, ShareWriteConditions } from './share-ports.ts';

const MAX_RACES = 20;

const gone = (message: string) => new ApiError(410, 'gone', message);

/** The share a link token names; an unknown or malformed token is 404, as for request links. */
const shareOfToken = async (deps: ShareDeps, token: string | undefined) => {
  const share = RANDOM_TOKEN_PATTERN.test(token ?? '') ? await deps.shares.findByLinkTokenHash(sha256Hex(token!)) : null;
  if (!share) throw notFound('This link is not valid.');
  return share;
};

const expiredByTime = (deps: ShareDeps, share: Share) => Date.parse(share.expiresAt) <= deps.clock.now().getTime();

/** What the recipient's page shows before opening: never the ciphertext, and opening nothing. */
export const describeShare = async (deps: ShareDeps, token: string | undefined) => {
  const share = await shareOfToken(deps, token);
  const live = isShareLive(share) && !expiredByTime(deps, share);
  return {
    status: live ? share.status : share.status === 'active' ? 'expired' : share.status,
    sealed_to_fingerprint: share.sealedToFingerprint,
    expires_at: share.expiresAt,
    views_left: live ? share.viewLimit - share.views : 0,
    from: share.createdBy.name,
  };
};

/** A share's link past its expiry, as its recipient is told. */
export const SHARE_EXPIRED = 'This share has expired.';

/**
 * POST /share/open: hands the ciphertext to the recipient's browser and counts the view; the last
 * allowed view destroys the ciphertext in the same transaction as its `share.revealed` and
 * `share.purged` entries, so two racing opens of a one-view share cannot both succeed.
 */
export const openShare = async (deps: ShareDeps, token: string | undefined) => {
  let share = await shareOfToken(deps, token);
  for (let race = 1; ; race++) {
    // Expired first, whether the expiry worker has ended it yet or not: told "already opened", a
    // recipient would be alarmed that someone else had opened it.
    if (share.status === 'expired' || (isShareLive(share) && expiredByTime(deps, share))) throw gone(SHARE_EXPIRED);
    if (!isShareLive(share)) throw gone('This share has already been opened or destroyed.');
    const envelope = await deps.shares.envelope(share.id);
    if (!envelope) throw gone('This share has already been opened or destroyed.');
    const at = deps.clock.now().toISOString();
    const after = viewed(share, at);
    // Opening takes the link alone (the key that opens the envelope never reaches the service), so
    // what the service can vouch for is that whoever held the link was handed the ciphertext.
    const actor: Actor = { type: 'subject', label: 'share link holder' };
    const last = after.status !== 'active';
    const entries = [shareAuditEntry(after, actor, 'share.revealed', { views: after.views, view_limit: after.viewLimit })];
    if (last) entries.push(shareAuditEntry(after, actor, 'share.purged', { reason: 'view_limit_reached' }));
    try {
      await deps.shares.update(share, after, entries, last);
      // The last view ended it: its expiry trigger has nothing left to do (best effort; a late one does nothing).
      if (last) await deps.scheduler?.cancel(share.id).catch(() => undefined);
      return { envelope, share: { sealed_to_fingerprint: after.sealedToFingerprint, views_left: after.viewLimit - after.views, destroyed: last } };
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
      share = (await deps.shares.get(share.id)) ?? share;
    }
  }
};

/**
 * A share's change made on `conditions` (share-ports.ts); `onConflict` is called when a write is
 * refused, and throws when one of them no longer holds.
 */
export interface ShareWriteCondition {
  conditions: ShareWriteConditions;
  onConflict(conditions: ShareWriteConditions): Promise<void>;
}

/**
 * Ends a live share and destroys its ciphertext (expiry, a trusted ticket close, the member);
 * answers the share as it now is, or null when it had already ended. An expiry that is not yet
 * due does nothing (an early or repeated trigger).
 */
export const endShare = async (
  deps: ShareDeps,
  shareId: string,
  reason: ShareEndReason,
  actor: Actor = SHARE_EXPIRY_ACTOR,
  details: Record<string, unknown> = {},
  condition?: ShareWriteCondition,
  /** Given the ended share just before it is stored (a caller's Idempotency-Key keeps its answer in that transaction). */
  prepared?: (after: Share) => void,
): Promise<Share | null> => {
  let share = await deps.shares.get(shareId);
  for (let race = 1; ; race++) {
    if (!share || !isShareLive(share)) return null;
    if (reason === 'expired' && !expiredByTime(deps, share)) return null;
    const after = ended(share, deps.clock.now().toISOString(), reason);
    const type = reason === 'expired' ? 'share.expired' : 'share.purged';
    prepared?.(after);
    try {
      await deps.shares.update(share, after, [shareAuditEntry(after, actor, type, { reason, ...details })], true, condition?.conditions);
      if (reason !== 'expired') await deps.scheduler?.cancel(share.id).catch(() => undefined);
      return after;
    } catch (error) {
      if (error instanceof WriteConflict) await condition?.onConflict(condition.conditions);
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
      share = await deps.shares.get(shareId);
    }
  }
};

const SHARES_AT_ONCE = 4;

/**
 * The sweep's part for shares: expires every live share already due, four at a time as the
 * requests are (a backlog of pages must end within the sweep function's timeout), reading the
 * byDue index a page per round (due-pages.ts) for at most `maxRounds` rounds.
 */
export const sweepDueShares = async (
  deps: ShareDeps,
  onFailure: (error: unknown, shareId: string) => void,
  options: { maxRounds?: number; pageSize?: number } = {},
) => {
  let expired = 0;
  let failed = 0;
  const read = (page: DuePaging) => deps.shares.dueBy(deps.clock.now(), page);
  await forEachDuePage(read, options, (ids) =>
    forEachLimited(ids, SHARES_AT_ONCE, async (id) => {
      try {
        if (await endShare(deps, id, 'expired')) expired++;
      } catch (error) {
        failed++;
        onFailure(error, id);
      }
    }),
  );
  return { expired, failed };
};

export const shareViewOf = toShareView;
