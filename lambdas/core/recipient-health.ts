import type { HandoffRequest, Member, RecordedKeyChange } from './model.ts';
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

/**
 * The recipients whose key is no longer the one the link was committed to, each with the key it
 * has now: a pending or opened link with any no longer leads to a submission (the subject's page
 * refuses to encrypt). Once their changes are on the trail, this is `keyChangesRecorded`.
 */
export const keyChangesNow = (request: Pick<HandoffRequest, 'recipients'>, members: MembersById): RecordedKeyChange[] =>
  checkRecipients(request, members)
    .filter((check) => check.problem === 'key_replaced')
    .map((check) => ({ membershipId: check.membershipId, fingerprint: members.get(check.membershipId)?.identityKey?.fingerprint ?? null }));

const changeId = (change: RecordedKeyChange) => `${change.membershipId} ${change.fingerprint}`;

/**
 * The key changes of a pending or opened request's recipients that its trail does not record yet,
 * whether or not its link is already marked unusable: each is recorded once.
 */
export const unrecordedKeyChanges = (request: Pick<HandoffRequest, 'recipients' | 'keyChangesRecorded'>, members: MembersById) => {
  const recorded = new Set((request.keyChangesRecorded ?? []).map(changeId));
  return keyChangesNow(request, members).filter((change) => !recorded.has(changeId(change)));
};

/** A submitted credential no recipient can open any more. */
export const noRecipientCanOpen = (checks: RecipientCheck[]) => checks.length > 0 && checks.every((check) => check.problem !== null);

/** Why nobody can open it, for the event's details: the recipients and what happened to each. */
export const unrecoverableDetails = (checks: RecipientCheck[]) => {
  const problems = new Set(checks.map((check) => check.problem));
  const reason = problems.size > 1 ? 'recipients_keys_replaced_or_disabled' : problems.has('disabled') ? 'recipients_disabled' : 'recipients_keys_replaced';
  return { reason, recipients: checks.map((check) => ({ membership_id: check.membershipId, label: check.label, problem: check.problem })) };
};
