import type { FieldErrors } from '../errors.ts';
import { recipientOf, type IdentityKey, type Member, type Recipient } from '../model.ts';
import type { Directory } from '../ports.ts';

export interface RecipientChoice {
  orgId: string;
  /** Emails as given (body or preset). */
  emails: string[];
  teamIds: string[];
  /** Email of the requester; defaults to the first listed recipient. */
  requesterEmail: string | null;
}

export interface ResolvedRecipients {
  recipients: Recipient[];
  /** The recipients' members, with the identity keys they were resolved with. */
  members: Member[];
  requester: Member;
  /** Names of members left out because their key is not verified (a replaced key awaiting approval, or refused). */
  excluded: string[];
  errors: FieldErrors;
}

/**
 * The most recipients a request has (SPEC.md's limits), however they are named: listed emails and
 * teams together. The subject's browser seals the credential to each of them, and a submission
 * sealed to more is refused, so a request beyond it could never be submitted.
 */
export const MAX_RECIPIENTS = 64;

const usableKey = (member: Member) => member.identityKey?.state === 'verified';
const awaitingApproval = (member: Member) => member.identityKey?.state === 'replaced_pending_approval';

/**
 * Turns emails, teams and the requester into the recipient set: each an active member with a
 * verified identity key; the requester always among them; members whose replaced key an admin
 * has not approved are left out and named; one whose key was refused is named as a field's error,
 * or left out of a team.
 */
export const resolveRecipients = async (directory: Directory, choice: RecipientChoice): Promise<ResolvedRecipients> => {
  const errors: FieldErrors = {};
  const addError = (field: string, message: string) => (errors[field] ??= []).push(message);
  const members = await directory.listMembers(choice.orgId);
  const byEmail = new Map(members.filter((m) => m.active).map((m) => [m.email.toLowerCase(), m]));
  const byId = new Map(members.map((m) => [m.id, m]));

  const chosen = new Map<string, Member>();
  const excluded = new Set<string>();
  const include = (member: Member, field: string | null) => {
    if (usableKey(member)) chosen.set(member.id, member);
    else if (awaitingApproval(member)) excluded.add(member.name);
    else if (field) addError(field, member.identityKey ? `${member.email}'s new key was refused; they must set up another.` : `${member.email} has not set up an identity key.`);
    else excluded.add(member.name);
  };

  choice.emails.forEach((email, position) => {
    const member = byEmail.get(email.toLowerCase());
    if (!member) addError(`recipients.${position}`, `No active member has the email ${email}.`);
    else include(member, `recipients.${position}`);
  });

  const teams = await Promise.all(choice.teamIds.map((teamId) => directory.getTeam(choice.orgId, teamId)));
  teams.forEach((team, position) => {
    if (!team) return addError(`teams.${position}`, 'No such team.');
    for (const memberId of team.memberIds) {
      const member = byId.get(memberId);
      // Teams are expanded implicitly: inactive members are skipped, keyless ones named as left out.
      if (member?.active) include(member, null);
    }
  });

  // The requester is always a recipient (SPEC.md), so the default skips a listed member who is left out.
  const firstIncluded = choice.emails.find((email) => chosen.has(byEmail.get(email.toLowerCase())?.id ?? ''));
  const requesterEmail = choice.requesterEmail ?? firstIncluded ?? choice.emails[0] ?? null;
  const requester = requesterEmail ? byEmail.get(requesterEmail.toLowerCase()) : undefined;
  if (!requesterEmail) addError('requester', 'A requester is needed when no recipient is listed by email.');
  else if (!requester) addError('requester', `No active member has the email ${requesterEmail}.`);
  else if (choice.requesterEmail && awaitingApproval(requester)) {
    addError('requester', `${requester.email} cannot be the requester: the requester is always a recipient, and their replaced key awaits approval.`);
  } else include(requester, 'requester');

  if (Object.keys(errors).length === 0 && chosen.size === 0) {
    addError('recipients', 'None of the recipients has a verified identity key.');
  }
  if (chosen.size > MAX_RECIPIENTS) {
    addError(choice.teamIds.length > 0 ? 'teams' : 'recipients', `These make ${chosen.size} recipients: a request has at most ${MAX_RECIPIENTS}. Name fewer teams or members.`);
  }
  const recipients = [...chosen.values()].map((member) => recipientOf(member as Member & { identityKey: IdentityKey }));
  return { recipients, members: [...chosen.values()], requester: requester as Member, excluded: [...excluded], errors };
};
