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

/** GET /app/api/shares: the member's own shares (all of them for owners and admins), newest first. */
export const listMemberShares = async (deps: ShareDeps, caller: MemberCaller) => {
  const { items } = await deps.shares.list(caller.org.id, MEMBER_SHARE_WINDOW);
  const visible = items.filter((share) => share.createdBy.membershipId === caller.member.id || isManager(caller.member));
  return { object: 'list' as const, data: visible.map(toShareView) };
};

export const readMemberShare = async (deps: ShareDeps, caller: MemberCaller, shareId: string) =>
  toShareView(await findMemberShare(deps, caller, shareId));

/** POST /app/api/shares/{id}/purge: the creator (or a manager) destroys a live share before it is opened. */
export const purgeMemberShare = async (deps: ShareDeps, caller: MemberCaller, shareId: string) => {
  const share = await findMemberShare(deps, caller, shareId);
  if (share.status !== 'active') throw illegalTransition('This share has already ended.');
  const after = await endShare(deps, share.id, 'purged_by_member', memberActor(caller.member));
  return toShareView(after ?? (await findMemberShare(deps, caller, shareId)));
};
