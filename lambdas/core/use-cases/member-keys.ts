import * as z from 'zod/mini';
import type { Clock } from '../clock.ts';
import { refreshAfterMemberChange, type RecipientHealthDeps } from './recipient-health.ts';
import { fieldError, forbidden, illegalTransition, notFound, WriteConflict } from '../errors.ts';
import { normaliseIdentityKey } from '../fingerprint.ts';
import { isId } from '../ids.ts';
import {
  identityKeyView,
  memberActor,
  memberRef,
  notSignedIn,
  requireManager,
  type IdentityKeyStore,
  type MemberCaller,
  type MemberDirectory,
} from '../member-access.ts';
import { nextKeyAwaitsApproval, refusedSoFar, type IdentityKey, type Member } from '../model.ts';
import type { AuditType } from '../audit-types.ts';
import type { AuditEntryInput } from '../ports.ts';
import { parseOrThrow } from '../validation.ts';

export interface MemberKeyDeps {
  directory: MemberDirectory;
  identityKeys: IdentityKeyStore;
  clock: Clock;
  /** Where the live requests a replaced key affects are found and marked (needs_relink, unrecoverable). */
  recipientHealth?: RecipientHealthDeps;
}

const MAX_RACES = 5;

const identityKeyBody = z.strictObject({
  public_key: z.string().check(z.minLength(1, 'Required.'), z.maxLength(4096, 'Must be at most 4096 characters.')),
});
const approveKeyBody = z.strictObject({
  /** The fingerprint the approver reviewed; when given, a different key awaiting approval is refused. */
  fingerprint: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/, 'Must be a SHA-256 fingerprint, 64 lower-case hex characters.'))),
});

/** A member as an owner or admin sees them in GET /app/api/members. */
export const managedMemberView = (member: Member) => ({
  membership_id: member.id,
  name: member.name,
  email: member.email,
  role: member.role,
  active: member.active,
  identity_key: identityKeyView(member.identityKey),
});

const keyAudit = (caller: MemberCaller, subject: Member, type: AuditType, details: Record<string, unknown>): AuditEntryInput => {
  const actor = memberActor(caller.member);
  return {
    orgId: caller.org.id,
    type,
    actor,
    clientId: null,
    requestId: null,
    data: { member: memberRef(subject), actor: { type: actor.type, label: actor.label }, details },
  };
};

/**
 * Reads the member, lets `change` decide, and writes on condition that the key is still what was
 * read; on a lost race the member is read again and the decision taken afresh. `prepared` is given
 * the result just before a change is stored (a caller's Idempotency-Key keeps its answer in that transaction).
 */
const changeKey = async <Result>(
  deps: MemberKeyDeps,
  orgId: string,
  memberId: string,
  missing: () => Error,
  change: (member: Member) => { next: IdentityKey; audit: AuditEntryInput; result: Result } | { result: Result },
  prepared?: (result: Result) => void,
): Promise<Result> => {
  for (let race = 1; ; race++) {
    const member = await deps.directory.getMember(orgId, memberId);
    if (!member) throw missing();
    const decided = change(member);
    if (!('next' in decided)) return decided.result;
    prepared?.(decided.result);
    try {
      await deps.identityKeys.replaceIdentityKey(member, member.identityKey, decided.next, decided.audit);
      return decided.result;
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
    }
  }
};

/** A key an owner or admin refused for this member, offered again: 422 on public_key. */
export const REFUSED_KEY = 'An owner or admin refused this key: make a new one (it waits for their approval).';

/** The fingerprint of an identity key another member of the organisation holds: 422 on public_key. */
export const ANOTHER_MEMBERS_KEY = "This is another member's key (imported from their backup?): each member needs a key of their own.";

/**
 * One key, one member: a credential sealed to a key is opened by whoever holds it, and the trail
 * names the member who revealed it, so a backup imported by a colleague would reveal as the wrong
 * person. Who holds it is not said. (Two members registering one new key at the same instant are
 * not caught; a backup is imported by a person, one at a time.)
 */
export const heldByAnotherMember = (members: Member[], memberId: string, fingerprint: string) =>
  members.some((member) => member.id !== memberId && member.identityKey?.fingerprint === fingerprint);

const refuseAnotherMembersKey = async (directory: Pick<MemberDirectory, 'listMembers'>, orgId: string, memberId: string, fingerprint: string) => {
  if (heldByAnotherMember(await directory.listMembers(orgId), memberId, fingerprint)) throw fieldError('public_key', ANOTHER_MEMBERS_KEY);
};

/**
 * POST /app/api/identity-key: a first key is verified at once; a replacement waits for an owner's
 * or admin's approval (until then the member is left out of new requests). The same key again
 * changes nothing. A key an operator made for the member (`madeBy: 'operator'`) never was the
 * member's own, so their own key replaces it at once, as a first key: the approval guards a
 * member's key against a stolen session, and an operator-made key gives no more to guard than
 * having no key (a session could register a first key just the same).
 */
export const registerIdentityKey = async (deps: MemberKeyDeps, caller: MemberCaller, rawBody: unknown) => {
  const body = parseOrThrow(identityKeyBody, rawBody ?? {});
  let key: { publicKey: string; fingerprint: string };
  try {
    key = normaliseIdentityKey(body.public_key);
  } catch {
    throw fieldError('public_key', 'Must be an ECDH P-256 public key: SPKI DER, base64.');
  }
  await refuseAnotherMembersKey(deps.directory, caller.org.id, caller.member.id, key.fingerprint);
  const result = await changeKey(deps, caller.org.id, caller.member.id, notSignedIn, (member) => {
    const current = member.identityKey;
    if (current?.fingerprint === key.fingerprint) return { result: identityKeyView(current)! };
    const refused = refusedSoFar(current);
    if (refused?.includes(key.fingerprint)) throw fieldError('public_key', REFUSED_KEY);
    const replacesOwnKey = nextKeyAwaitsApproval(current);
    const next: IdentityKey = {
      ...key,
      state: replacesOwnKey ? 'replaced_pending_approval' : 'verified',
      registeredAt: deps.clock.now().toISOString(),
      ...(refused ? { refusedFingerprints: refused } : {}),
    };
    return {
      next,
      audit: keyAudit(caller, member, current ? 'member.key_replaced' : 'member.key_registered', {
        fingerprint: next.fingerprint,
        state: next.state,
        ...(current && !replacesOwnKey ? { replaced_operator_key: current.fingerprint } : {}),
      }),
      result: identityKeyView(next)!,
    };
  });
  // Also when the key was already this one: a retry after a failed refresh finishes it.
  if (deps.recipientHealth) await refreshAfterMemberChange(deps.recipientHealth, caller.org.id, caller.member.id, memberActor(caller.member));
  return result;
};

/** GET /app/api/members (owners and admins). */
export const listManagedMembers = async (deps: Pick<MemberKeyDeps, 'directory'>, caller: MemberCaller) => {
  requireManager(caller, 'manage members');
  const members = await deps.directory.listMembers(caller.org.id);
  members.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { data: members.map(managedMemberView) };
};

/** What an owner or admin decides about a replaced key awaiting approval. */
const DECISIONS = {
  approve: { state: 'verified', audit: 'member.key_approved', ownKey: 'Another owner or admin must approve your own replaced key.' },
  refuse: { state: 'refused', audit: 'member.key_refused', ownKey: 'Another owner or admin must decide on your own replaced key.' },
} as const;

/**
 * POST /app/api/members/{id}/approve-key and /refuse-key (owners and admins): the replaced key
 * awaiting approval becomes verified, or refused. Nobody decides on their own replacement (a stolen
 * session must not be enough to swap a key in); 409 when no key awaits approval, or when it is not
 * the fingerprint reviewed. A refused key stays on the member (never sealed to, and the same key
 * cannot be offered again): their next key waits for approval as a replacement would, so a refusal
 * never opens the way to a key verified at once. `prepared` is given the answer just before the
 * decision is stored (a caller's Idempotency-Key keeps it in that transaction).
 */
export const decideReplacedKey = async (
  deps: MemberKeyDeps,
  caller: MemberCaller,
  memberId: string,
  rawBody: unknown,
  decision: keyof typeof DECISIONS,
  prepared?: (answer: ReturnType<typeof managedMemberView>) => void,
) => {
  requireManager(caller, 'manage members');
  const body = parseOrThrow(approveKeyBody, rawBody ?? {});
  if (!isId(memberId)) throw notFound('No member with this id.');
  const rule = DECISIONS[decision];
  if (memberId === caller.member.id) throw forbidden(rule.ownKey);
  const missing = () => notFound('No member with this id.');
  return changeKey(deps, caller.org.id, memberId, missing, (member) => {
    const pending = member.identityKey;
    if (pending?.state !== 'replaced_pending_approval') throw illegalTransition('This member has no key awaiting approval.');
    if (body.fingerprint && body.fingerprint !== pending.fingerprint) {
      throw illegalTransition('The key awaiting approval is not the one you reviewed; review it again.');
    }
    const next: IdentityKey = { ...pending, state: rule.state };
    return {
      next,
      audit: keyAudit(caller, member, rule.audit, { fingerprint: next.fingerprint }),
      result: managedMemberView({ ...member, identityKey: next }),
    };
  }, prepared);
};
