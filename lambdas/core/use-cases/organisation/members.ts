import * as z from 'zod/mini';
import type { AuditType } from '../../audit-types.ts';
import { ApiError, fieldError, forbidden, notFound, retryOnConflict, WriteConflict } from '../../errors.ts';
import { isId, newId } from '../../ids.ts';
import { memberRef } from '../../member-access.ts';
import { ROLES, type Member, type NewIdentityKey, type Role } from '../../model.ts';
import { emailAddress } from '../../email-address.ts';
import { parseOrThrow } from '../../validation.ts';
import { changeAudit, nameField, requireOrganisation, type Acting, type OrganisationDeps } from './acting.ts';
import { refreshAfterMemberChange } from '../recipient-health.ts';
import { ANOTHER_MEMBERS_KEY, heldByAnotherMember } from '../member-keys.ts';

/**
 * Members: added (the operator's add-member, an owner's or admin's invitation), their role changed,
 * disabled and enabled again. A disabled member cannot sign in, and their sessions end at once
 * (every session call reads the member: use-cases/member-sign-in.ts resolveSession); they are left
 * out of new requests.
 *
 * What an owner or admin may do (the operator, who recovers organisations, is held to none of it):
 * - only an owner makes someone an owner, or changes or disables an owner: an admin manages admins
 *   and members only, so an admin can never take the organisation from its owners;
 * - the organisation's last active owner is never demoted or disabled (themselves included);
 * - nobody disables themselves (their own session would end mid-change).
 */
export const memberExists = () => new ApiError(409, 'member_exists', 'A member with this email already belongs to the organisation.');
export const lastOwner = () =>
  new ApiError(409, 'last_owner', 'The organisation’s last active owner cannot be demoted or disabled. Make another member an owner first.');
const ownersOnly = () => forbidden('Only owners can make someone an owner, or change or disable an owner.');
const missingMember = () => notFound('No member with this id.');

const roleField = () => z.enum(ROLES, 'Must be owner, admin or member.');

const addMemberInput = z.strictObject({
  name: nameField(),
  email: emailAddress(),
  role: z._default(roleField(), 'member'),
});
const roleInput = z.strictObject({ role: roleField() });

export const newMember = (input: {
  orgId: string;
  name: string;
  email: string;
  role: Role;
  identityKey?: NewIdentityKey;
  at: string;
}): Member => ({
  id: newId(),
  orgId: input.orgId,
  name: input.name,
  email: input.email.trim().toLowerCase(),
  role: input.role,
  active: true,
  // A key given when the member is added is the operator's to attest: verified at once.
  identityKey: input.identityKey ? { ...input.identityKey, state: 'verified', registeredAt: input.at } : null,
  createdAt: input.at,
});

/** Adds an active member ({name, email, role?}; role defaults to member). 409 `member_exists` when the email is taken. */
export const addMember = async (
  deps: OrganisationDeps,
  acting: Acting,
  orgId: string,
  rawInput: unknown,
  /** `prepared` is given the member just before it is stored (a caller's Idempotency-Key keeps its answer in that transaction). */
  options: { identityKey?: NewIdentityKey; prepared?: (member: Member) => void } = {},
) => {
  await requireOrganisation(deps, orgId);
  const input = parseOrThrow(addMemberInput, rawInput ?? {});
  if (input.role === 'owner' && acting.member && acting.member.role !== 'owner') throw ownersOnly();
  const member = newMember({ orgId, ...input, identityKey: options.identityKey, at: deps.clock.now().toISOString() });
  if (await deps.changes.memberIdByEmail(orgId, member.email)) throw memberExists();
  // One key, one member (member-keys.ts): a reveal must name the one person who holds the key.
  if (options.identityKey && heldByAnotherMember(await deps.directory.listMembers(orgId), member.id, options.identityKey.fingerprint)) {
    throw fieldError('identity_key', ANOTHER_MEMBERS_KEY);
  }
  const audit = changeAudit(orgId, acting, 'member.added', { member: memberRef(member), details: { role: member.role } });
  options.prepared?.(member);
  try {
    await deps.changes.addMember(member, audit);
  } catch (error) {
    // Another call added this email in between.
    if (error instanceof WriteConflict) throw memberExists();
    throw error;
  }
  return member;
};

/** The member's role and state after the change, or null when the change would change nothing. */
type Decide = (member: Member) => Pick<Member, 'role' | 'active'>;

/**
 * One member's role or state changed by `decide`, under the rules above; the last-owner rule is
 * held in the transaction too (the owners kept are checked there), so concurrent changes cannot
 * break it. Answers the member as it now is.
 */
const changeMember = (deps: OrganisationDeps, acting: Acting, orgId: string, memberId: string, type: (member: Member, next: Pick<Member, 'role' | 'active'>) => [AuditType, Record<string, unknown>], decide: Decide) =>
  retryOnConflict(
    async () => {
      await requireOrganisation(deps, orgId);
      if (!isId(memberId)) throw missingMember();
      const member = await deps.directory.getMember(orgId, memberId);
      if (!member) throw missingMember();
      const next = decide(member);
      // Who may act is judged before whether anything changes: an admin is refused an owner's
      // row even when the change asked for is already so.
      if (acting.member) {
        if (acting.member.role !== 'owner' && (member.role === 'owner' || next.role === 'owner')) throw ownersOnly();
        if (!next.active && member.id === acting.member.id) throw forbidden('You cannot disable yourself. Ask another owner or admin.');
      }
      if (next.role === member.role && next.active === member.active) return member;
      let keptOwner: Member | null = null;
      const losesOwner = member.role === 'owner' && member.active && (next.role !== 'owner' || !next.active);
      if (acting.member && losesOwner) {
        // One owner who stays is enough to check in the transaction: transactions are serialisable,
        // so of changes racing to remove owners, the last to commit finds the one it checked gone.
        keptOwner = (await deps.directory.listMembers(orgId)).find((other) => other.id !== member.id && other.role === 'owner' && other.active) ?? null;
        if (!keptOwner) throw lastOwner();
      }
      // Disabling ends the member's sessions for good: an enable later does not revive them.
      const change = member.active && !next.active ? { ...next, sessionsValidFrom: deps.clock.now().toISOString() } : next;
      const [auditType, details] = type(member, next);
      await deps.changes.updateMember(member, change, changeAudit(orgId, acting, auditType, { member: memberRef(member), details }), keptOwner);
      return { ...member, ...change };
    },
  );

/** {role}: owner, admin or member. The same role again changes nothing. */
export const changeMemberRole = (deps: OrganisationDeps, acting: Acting, orgId: string, memberId: string, rawInput: unknown) => {
  const { role } = parseOrThrow(roleInput, rawInput ?? {});
  return changeMember(deps, acting, orgId, memberId, (member, next) => ['member.role_changed', { from: member.role, to: next.role }], (member) => ({ role, active: member.active }));
};

/** Disables or enables a member; a member already in that state is left alone (no second event). */
export const setMemberActive = async (deps: OrganisationDeps, acting: Acting, orgId: string, memberId: string, active: boolean) => {
  const member = await changeMember(deps, acting, orgId, memberId, () => [active ? 'member.enabled' : 'member.disabled', {}], (member) => ({ role: member.role, active }));
  // Also when nothing changed: a retry after a failed refresh finishes it.
  if (deps.recipientHealth) await refreshAfterMemberChange(deps.recipientHealth, orgId, member.id, acting.actor);
  return member;
};
