import { illegalTransition, notFound } from '../../errors.ts';
import { isManager, memberActor, type MemberCaller } from '../../member-access.ts';
import { toShareView, type Share } from '../../share.ts';
import { endShare } from './share-lifecycle.ts';
import type { ShareDeps } from './share-ports.ts';

/** How many of the organisation's newest shares the member list looks through. */
export const MEMBER_SHARE_WINDOW = 200;

/** A share is its creator's; owners and admins see every share of the organisation. Anyone else: 404. */
export const findMemberShare = async (deps: ShareDeps, caller: MemberCaller, shareId: string): Promise<Share> => {
  const share = await deps.shares.get(shareId);
  if (!share || share.orgId !== caller.org.id) throw notFound('No share with this id.');
  if (share.createdBy.membershipId !== caller.member.id && !isManager(caller.member)) throw notFound('No share with this id.');
  return share;
};

/**
 * The share as a member should see it now: one past its expiry is expired, even in the minutes
 * before the expiry trigger or the sweep has destroyed it (the recipient's link already refuses it).
 */
const asSeenNow = (deps: ShareDeps, share: Share) =>
  toShareView(share.status === 'active' && Date.parse(share.expiresAt) <= deps.clock.now().getTime() ? { ...share, status: 'expired' } : share);

/** GET /app/api/shares: the member's own shares (all of them for owners and admins), newest first. */
export const listMemberShares = async (deps: ShareDeps, caller: MemberCaller) => {
  const { items } = await deps.shares.list(caller.org.id, MEMBER_SHARE_WINDOW);
  const visible = items.filter((share) => share.createdBy.membershipId === caller.member.id || isManager(caller.member));
  return { object: 'list' as const, data: visible.map((share) => asSeenNow(deps, share)) };
};

export const readMemberShare = async (deps: ShareDeps, caller: MemberCaller, shareId: string) =>
  asSeenNow(deps, await findMemberShare(deps, caller, shareId));

/**
 * POST /app/api/shares/{id}/purge: the creator (or a manager) destroys a live share before it is opened.
 * `prepared` is given the answer just before the purge is stored (a caller's Idempotency-Key keeps it in that transaction).
 */
export const purgeMemberShare = async (deps: ShareDeps, caller: MemberCaller, shareId: string, prepared?: (view: ReturnType<typeof toShareView>) => void) => {
  const share = await findMemberShare(deps, caller, shareId);
  if (share.status !== 'active') throw illegalTransition('This share has already ended.');
  // Past its expiry, the share ends as expired (what it is), not as destroyed by the member.
  const reason = Date.parse(share.expiresAt) <= deps.clock.now().getTime() ? 'expired' : 'purged_by_member';
  const after = await endShare(deps, share.id, reason, memberActor(caller.member), {}, undefined, prepared && ((ended) => prepared(toShareView(ended))));
  // Null: a last view, the expiry or a ticket close ended it after the read above. It was not
  // this call, which answers as for any share already ended.
  if (!after) throw illegalTransition('This share has already ended.');
  return toShareView(after);
};
