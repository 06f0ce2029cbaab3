import * as z from 'zod/mini';
import { storedCodeMatches, typedCode } from '../../codes.ts';
import { ApiError, type FieldErrors } from '../../errors.ts';
import { randomToken, sha256Hex } from '../../hashing.ts';
import { holdsCurrentPass, MAX_FAILED_ATTEMPTS, verificationFor, verificationOf } from '../../subject-flow.ts';
import { parseOrThrow } from '../../validation.ts';
import type { HandoffRequest, SubjectVerification } from '../../model.ts';
import { applyChange, readAgain } from '../apply-change.ts';
import { assertLinkUsable, verificationView } from './describe.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';

const sixDigits = z.string().check(z.regex(/^[0-9]{6}$/, 'Must be the 6-digit code.'));
export const verifyBody = z.strictObject({ challenge_code: z.optional(sixDigits), email_code: z.optional(sixDigits) }).check(
  z.refine((body) => body.challenge_code !== undefined || body.email_code !== undefined, {
    message: 'Enter a code.',
    path: ['challenge_code'],
  }),
);

/**
 * Checks the codes the subject typed. Each wrong code uses one of MAX_FAILED_ATTEMPTS; the last
 * one locks the link (`needs_relink`). The attempt is stored before the answer, so a caller
 * cannot try again by dropping the connection.
 *
 * A passed code belongs to the browser that typed it, not to the link: the first code a caller
 * passes issues a subject pass (`verification.subject_pass`, shown in this answer only; its
 * SHA-256 hash is stored), which the page sends back in `X-Subject-Pass`. A new pass replaces the
 * old one, whose holder has then passed nothing. A code the caller's pass has already passed is not
 * checked again: its answer is the verification as it stands, with nothing written. A caller
 * without the current pass is judged afresh, a wrong code spending an attempt as any other.
 */
export const verifySubject = async (deps: SubjectDeps, holder: LinkHolder, rawBody: unknown) => {
  const body = parseOrThrow(verifyBody, rawBody ?? {});
  const requestId = holder.request.id;
  // Hashed before the request is read: the decision below is synchronous, and the hash depends only on the request id.
  const challenge = body.challenge_code === undefined ? null : await typedCode(deps.codeKey, requestId, 'challenge', body.challenge_code);
  const emailed = body.email_code === undefined ? null : await typedCode(deps.codeKey, requestId, 'email', body.email_code);
  // Drawn once, outside the transaction (its decision may run again): used only if a code passes for a caller without the current pass.
  const newPass = randomToken(32);
  const newPassHash = sha256Hex(newPass);
  // The emailed code typed was the one sent, but it had expired: no guess, so no attempt spent.
  let emailedLate = false;
  let issued = false;
  const request = await applyChange(
    deps.requests,
    readAgain(deps.requests, holder.request),
    (current) => {
      emailedLate = false;
      issued = false;
      assertLinkUsable(deps, current, holder);
      const now = deps.clock.now();
      const holdsPass = holdsCurrentPass(current, holder.passHash);
      // What this caller has passed: nothing, unless it holds the current pass.
      const verification = { ...verificationFor(current, holder.passHash) };
      const details: Record<string, unknown> = {};
      let failed = false;
      // A code that has passed is not judged again (the page may send it again after a reload): a
      // wrong one then would spend an attempt, and could lock a link, while the answer said passed.
      const judgesChallenge = body.challenge_code !== undefined && !verification.challengePassed;
      const judgesEmail = body.email_code !== undefined && !verification.emailPassed;
      if (!judgesChallenge && !judgesEmail) return null;
      if (judgesChallenge) {
        if (challenge && storedCodeMatches(challenge, current.challengeCodeHash)) {
          verification.challengePassed = true;
          details.challenge = 'passed';
        } else {
          verification.failedAttempts += 1;
          details.challenge = 'failed';
          failed = true;
        }
      }
      if (judgesEmail) {
        const expired = !verification.emailCodeExpiresAt || new Date(verification.emailCodeExpiresAt) <= now;
        if (!expired && emailed && storedCodeMatches(emailed, verification.emailCodeHash)) {
          verification.emailPassed = true;
          verification.emailCodeHash = null;
          verification.emailCodeExpiresAt = null;
          details.email = 'passed';
        } else if (expired && emailed && storedCodeMatches(emailed, verification.emailCodeHash)) {
          // A subject slow to type the code they were sent is not guessing: told to ask for a new
          // one, without spending one of the attempts that lock the link.
          emailedLate = true;
          details.email = 'expired';
          failed = true;
          // Nothing to record when that is all this call did: an answer that spends nothing must not
          // let whoever holds an old code write to the organisation's trail without end.
          if (!judgesChallenge) return null;
        } else {
          verification.failedAttempts += 1;
          details.email = expired ? 'expired' : 'failed';
          failed = true;
        }
      }
      const passedNow = details.challenge === 'passed' || details.email === 'passed';
      let stored: typeof verification;
      if (holdsPass) {
        stored = verification;
      } else if (passedNow) {
        // A new pass for this caller, with what it has passed: the previous holder's pass dies.
        stored = { ...verification, passHash: newPassHash };
        issued = true;
      } else {
        // Nothing passed: only the attempts (and a spent emailed code) change; the pass holder keeps what it passed.
        const kept = verificationOf(current);
        stored = { ...verification, challengePassed: kept.challengePassed, emailPassed: kept.emailPassed };
      }
      const locked = stored.failedAttempts >= MAX_FAILED_ATTEMPTS;
      const after: HandoffRequest = { ...current, verification: stored, needsRelink: current.needsRelink || locked, updatedAt: now.toISOString() };
      const type = locked ? 'request.link_locked' : failed ? 'subject.verification_failed' : 'subject.verified';
      return { after, audit: subjectAudit(deps, after, type, details) };
    },
    (current, change) => change?.after ?? current,
  );
  const passHash = issued ? newPassHash : holder.passHash;
  const view = { ...verificationView(request, passHash), ...(issued ? { subject_pass: newPass } : {}) };
  const failed = codesFailed(body, verificationFor(request, passHash), emailedLate);
  if (Object.keys(failed).length > 0) {
    const left = view.attempts_left;
    for (const field of Object.keys(failed)) failed[field] = [`${failed[field][0]} ${left === 1 ? '1 attempt' : `${left} attempts`} left.`];
    throw new ApiError(422, 'validation_failed', left === 0 ? 'Too many wrong codes: this link is now locked.' : 'A code is not right.', failed, {}, {
      extra: { verification: view },
    });
  }
  return { verification: view };
};

/** Which of the typed codes did not pass, judged from the stored outcome. */
const codesFailed = (body: z.infer<typeof verifyBody>, v: SubjectVerification, emailedLate: boolean): FieldErrors => {
  const failed: FieldErrors = {};
  if (body.challenge_code !== undefined && !v.challengePassed) failed.challenge_code = ['This code is not right.'];
  if (body.email_code !== undefined && !v.emailPassed) failed.email_code = [emailedLate ? EMAILED_CODE_EXPIRED : 'This code is not right or has expired.'];
  return failed;
};

/** The emailed code typed after its ten minutes: it was right, and a new one is what helps. */
export const EMAILED_CODE_EXPIRED = 'This code has expired: ask for a new one.';
