import { isCurrentLink, linkClosed, linkClosedReason, MAX_FAILED_ATTEMPTS, verificationFor, verificationPassed } from '../../subject-flow.ts';
import type { HandoffRequest } from '../../model.ts';
import { membersById, type MembersById } from '../../recipient-health.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from '../../attachment-limits.ts';
import type { LinkHolder, SubjectDeps } from './subject-context.ts';

/**
 * The verification as the caller holding `passHash` sees it: codes passed under another pass (or
 * none) show as not passed here, as they count for nothing in this caller's hands.
 */
export const verificationView = (request: HandoffRequest, passHash: string | null) => {
  const v = verificationFor(request, passHash);
  return {
    passed: verificationPassed(request.verificationMode, v),
    challenge_passed: v.challengePassed,
    email_passed: v.emailPassed,
    attempts_left: Math.max(0, MAX_FAILED_ATTEMPTS - v.failedAttempts),
  };
};

/** Throws 410 `link_closed` when the link can no longer be used. */
export const assertLinkUsable = (deps: Pick<SubjectDeps, 'clock'>, request: HandoffRequest, holder: Pick<LinkHolder, 'tokenHash'>) => {
  if (!isCurrentLink(request, holder.tokenHash)) throw linkClosed('replaced');
  const reason = linkClosedReason(request, deps.clock.now());
  if (reason) throw linkClosed(reason);
};

/**
 * What the subject's page needs: who asks and why, how to verify, and the recipients' current
 * public keys, from which the page recomputes the commitment and compares it with the link's
 * fragment. Never a code, token or hash.
 */
export const describeForSubject = async (deps: SubjectDeps, holder: LinkHolder, read?: MembersById) => {
  const { request, org } = holder;
  assertLinkUsable(deps, request, holder);
  const members = read ?? (await membersById(deps.directory, org.id));
  return {
    id: request.id,
    status: request.status,
    organisation: { name: org.name },
    client: { name: request.client.name },
    requester: { name: request.requester.name, email: request.requester.email },
    subject: { name: request.subject.name },
    justification: request.justification,
    verification_mode: request.verificationMode,
    verification: verificationView(request, holder.passHash),
    email_code_available: request.subject.email !== null,
    allow_attachments: request.allowAttachments,
    limits: { attachments: MAX_ATTACHMENTS, attachment_bytes: MAX_ATTACHMENT_BYTES },
    link_expires_at: request.linkExpiresAt,
    recipients: request.recipients.map((recipient) => ({
      membership_id: recipient.membershipId,
      label: recipient.label,
      public_key: members.get(recipient.membershipId)?.identityKey?.publicKey ?? null,
    })),
  };
};
