import type { HandoffRequest, Member } from './model.ts';
import type { Directory } from './ports.ts';

/**
 * Whether a request's recipients can still do their part, judged from the members as they are
 * now against the keys the request was sealed (or committed) to:
 * - before submission, the subject's page recomputes the commitment from the recipients' current
 *   keys, so one replaced key makes the link refuse to encrypt (`needs_relink`);
 * - after submission, the credential opens only with a sealed-to key in the browser of an active
 *   member, so when no recipient has both any more, nobody can open it (`unrecoverable`).
 */
export type RecipientProblem = 'key_replaced' | 'disabled';

export interface RecipientCheck {
  membershipId: string;
  label: string;
  problem: RecipientProblem | null;
}

export type MembersById = ReadonlyMap<string, Member>;

/** The organisation's members as they are now, by id: what the recipients are checked against. */
export const membersById = async (directory: Pick<Directory, 'listMembers'>, orgId: string): Promise<MembersById> =>
  new Map((await directory.listMembers(orgId)).map((member) => [member.id, member]));

export const checkRecipients = (request: Pick<HandoffRequest, 'recipients'>, members: ReadonlyMap<string, Member>): RecipientCheck[] =>
  request.recipients.map((recipient) => {
    const member = members.get(recipient.membershipId);
    const problem: RecipientProblem | null =
      member?.identityKey?.fingerprint !== recipient.fingerprint ? 'key_replaced' : member.active ? null : 'disabled';
    return { membershipId: recipient.membershipId, label: recipient.label, problem };
  });

/** A pending or opened request whose link no longer leads to a submission because a recipient's key changed. */
export const keysChangedSinceCommit = (checks: RecipientCheck[]) => checks.some((check) => check.problem === 'key_replaced');

/** A submitted credential no recipient can open any more. */
export const noRecipientCanOpen = (checks: RecipientCheck[]) => checks.length > 0 && checks.every((check) => check.problem !== null);

/** Why nobody can open it, for the event's details: the recipients and what happened to each. */
export const unrecoverableDetails = (checks: RecipientCheck[]) => {
  const problems = new Set(checks.map((check) => check.problem));
  const reason = problems.size > 1 ? 'recipients_keys_replaced_or_disabled' : problems.has('disabled') ? 'recipients_disabled' : 'recipients_keys_replaced';
  return { reason, recipients: checks.map((check) => ({ membership_id: check.membershipId, label: check.label, problem: check.problem })) };
};
