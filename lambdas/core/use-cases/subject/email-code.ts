import { addMinutes } from '../../clock.ts';
import { codeEmail } from '../../messages.ts';
import { codeHash, newSixDigitCode } from '../../codes.ts';
import { ApiError, illegalTransition } from '../../errors.ts';
import { needsSubjectEmail } from '../../policy.ts';
import { EMAIL_CODE_LIFETIME_MINUTES, emailCodesUsedUp, MAX_EMAIL_CODES, verificationOf } from '../../subject-flow.ts';
import { newId } from '../../ids.ts';
import { applyChange, readAgain } from '../apply-change.ts';
import { assertLinkUsable } from './describe.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';

/** The answer once the link's emailed codes are all sent. */
export const EMAIL_CODES_USED_UP = `No more codes can be emailed for this link (at most ${MAX_EMAIL_CODES}). Ask the person who sent it for a new link.`;

/**
 * Emails a one-time code to the request's subject_email. The code's hash is stored first, then the
 * message is sent; a new code replaces the previous one. At most MAX_EMAIL_CODES per request.
 */
export const sendEmailCode = async (deps: SubjectDeps, holder: LinkHolder) => {
  const code = newSixDigitCode();
  const storedCode = await codeHash(deps.codeKey, holder.request.id, 'email', code);
  // Every code already sent: refused, after the change that marks a dead link needs_relink, if any, is stored.
  let usedUp = false;
  const request = await applyChange(
    deps.requests,
    readAgain(deps.requests, holder.request),
    (current) => {
      assertLinkUsable(deps, current, holder);
      if (!needsSubjectEmail(current.verificationMode) || !current.subject.email) {
        throw illegalTransition('This request does not use an emailed code.');
      }
      const verification = verificationOf(current);
      const now = deps.clock.now();
      // A cap for the link's whole life (a new link starts again), not a rate: no Retry-After, as
      // waiting never helps, and a client that honours one would ask again for ever.
      usedUp = verification.emailCodesSent >= MAX_EMAIL_CODES;
      if (usedUp && (current.needsRelink || !emailCodesUsedUp(current, now))) throw new ApiError(429, 'rate_limited', EMAIL_CODES_USED_UP);
      if (usedUp) {
        // No code left to type: the link can no longer lead to a submission, which its requester learns as needs_relink.
        const after = { ...current, needsRelink: true, updatedAt: now.toISOString() };
        return { after, audit: subjectAudit(deps, after, 'request.email_codes_used_up', { email_codes_sent: verification.emailCodesSent }) };
      }
      const after = {
        ...current,
        verification: {
          ...verification,
          emailCodeHash: storedCode,
          emailCodeExpiresAt: addMinutes(now, EMAIL_CODE_LIFETIME_MINUTES).toISOString(),
          emailCodesSent: verification.emailCodesSent + 1,
        },
        updatedAt: now.toISOString(),
      };
      return { after, audit: subjectAudit(deps, after, 'subject.email_code_sent', { channel: 'email' }) };
    },
    (_current, change) => change!.after,
  );
  if (usedUp) throw new ApiError(429, 'rate_limited', EMAIL_CODES_USED_UP);
  await deps.notifier.sendEmail({
    id: newId(),
    purpose: 'email_code',
    to: request.subject.email!,
    ...codeEmail({ organisation: holder.org.name, code, lifetimeMinutes: EMAIL_CODE_LIFETIME_MINUTES }),
  });
  return { sent: true, expires_in_minutes: EMAIL_CODE_LIFETIME_MINUTES };
};
