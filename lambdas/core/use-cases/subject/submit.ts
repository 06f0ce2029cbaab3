import * as z from 'zod/mini';
import { forbidden, validationFailed } from '../../errors.ts';
import { submit } from '../../subject-flow.ts';
import { parseOrThrow } from '../../validation.ts';
import { verificationFor, verificationPassed } from '../../subject-flow.ts';
import { syncExpirySchedule } from '../../expiry-schedule.ts';
import { applyChange, readAgain } from '../apply-change.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENT_HEADER_BYTES, MAX_ATTACHMENTS } from '../../attachment-limits.ts';
import { assertLinkUsable } from './describe.ts';
import { subjectAudit, type LinkHolder, type SubjectDeps } from './subject-context.ts';
import { closedTicketChange, closeIfTicketClosed } from '../tickets/closed-before-submission.ts';
import type { HandoffRequest } from '../../model.ts';
import { flagIfUnrecoverable } from '../recipient-health.ts';

const base64 = (max: number) => z.string().check(z.maxLength(max, 'Too large.'), z.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'Must be base64.'));
/**
 * Sealed sizes: base64 of the ciphertext (the framed file: its name and type header, at most
 * MAX_ATTACHMENT_HEADER_BYTES, then its bytes; plus the 16-byte tag), with room to spare.
 */
const SEALED_ATTACHMENT_CHARS = Math.ceil(((MAX_ATTACHMENT_BYTES + MAX_ATTACHMENT_HEADER_BYTES + 16) * 4) / 3) + 4;

export const submitBody = z.strictObject({
  envelope: z.strictObject({
    version: z.literal(1),
    alg: z.literal('ECDH-ES+HKDF-SHA256+A256GCM'),
    ephemeral_public_key: base64(200),
    iv: base64(24),
    ciphertext: base64(64 * 1024),
    recipients: z
      .array(
        z.strictObject({
          membership_id: z.string().check(z.regex(/^[0-9a-z]{26}$/)),
          fingerprint: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
          iv: base64(24),
          wrapped_key: base64(100),
        }),
      )
      .check(z.minLength(1), z.maxLength(64)),
  }),
  attachments: z._default(
    // The file's name and type are sealed inside its ciphertext (web/crypto/attachment-frame.ts): a name can itself be the secret.
    z.array(z.strictObject({ iv: base64(24), ciphertext: base64(SEALED_ATTACHMENT_CHARS) })).check(z.maxLength(MAX_ATTACHMENTS, `At most ${MAX_ATTACHMENTS} files.`)),
    [],
  ),
});

/**
 * Stores what the subject's browser sealed: ciphertext only, addressed to exactly the request's
 * recipients (membership and key fingerprint), after the verification the request asks for,
 * passed by the caller (the current subject pass; none needed in mode `none`).
 */
export const submitCredential = async (deps: SubjectDeps, holder: LinkHolder, rawBody: unknown) => {
  const body = parseOrThrow(submitBody, rawBody ?? {});
  const request = await applyChange(
    deps.requests,
    readAgain(deps.requests, holder.request),
    (current) => {
      assertLinkUsable(deps, current, holder);
      // Passed by this browser: the codes count only with the subject pass their verify issued.
      if (!verificationPassed(current.verificationMode, verificationFor(current, holder.passHash))) {
        throw forbidden('Verify with the code first.');
      }
      const expected = new Set(current.recipients.map((r) => `${r.membershipId}:${r.fingerprint}`));
      const sealedTo = new Set(body.envelope.recipients.map((r) => `${r.membership_id}:${r.fingerprint}`));
      if (expected.size !== sealedTo.size || [...expected].some((entry) => !sealedTo.has(entry))) {
        throw validationFailed({ 'envelope.recipients': ["Must be sealed to exactly this request's recipients and keys."] });
      }
      if (body.attachments.length > 0 && !current.allowAttachments) {
        throw validationFailed({ attachments: ['This request does not take files.'] });
      }
      const now = deps.clock.now();
      const submitted = submit(current, now, body.attachments.length);
      const material = { envelope: body.envelope, attachments: body.attachments };
      const audit = (request: HandoffRequest) => subjectAudit(deps, request, 'request.submitted', { attachments_count: body.attachments.length });
      // A ticket already closed (and trusted) destroys the credential as a close arriving now would,
      // and the submission itself says so, so that a follow-up lost after it (contention, a crash)
      // leaves the credential due, never kept: a grace period's purge is scheduled in this very
      // transaction; with none, the credential is due at once (no reveal from now on, the sweep
      // destroys it) and the follow-up below completes the request.
      const closing = closedTicketChange(deps, holder.org, submitted, now);
      if (closing?.after.status === 'submitted') return { after: closing.after, material, audit: audit(closing.after), followUps: [closing.audit] };
      const after = closing ? { ...submitted, purgeScheduledAt: submitted.submittedAt } : submitted;
      return { after, material, audit: audit(after) };
    },
    (_current, change) => change!.after,
  );
  await syncExpirySchedule(deps, request); // now due at record_expires_at
  // The subject is told what they did; the organisation's trail says what the closed ticket did to
  // it, and whether anyone can open it. Both follow the stored submission: the close comes first, as
  // it destroys; a failed check is only logged (the next member change judges the request again),
  // never turned into an error for a credential already stored.
  const closed = await closeIfTicketClosed(deps, holder.org, request).catch((error: unknown) => {
    // Stored, and due for destruction already (see above): the sweep completes what failed here.
    deps.logger?.warn('Completing a submission to a closed ticket failed; the sweep will', { requestId: request.id, error: error instanceof Error ? error.message : String(error) });
    return request;
  });
  await flagIfUnrecoverable(deps, closed).catch((error: unknown) =>
    deps.logger?.warn('The recipient check after a submission failed', { requestId: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
  return { status: request.status, submitted_at: request.submittedAt, record_expires_at: request.recordExpiresAt };
};
