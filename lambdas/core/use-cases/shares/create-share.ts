import * as z from 'zod/mini';
import { validationFailed } from '../../errors.ts';
import { sha256Hex, randomToken } from '../../hashing.ts';
import { newId } from '../../ids.ts';
import { memberActor, type MemberCaller } from '../../member-access.ts';
import { SHARE_LIMITS, toShareView, type Share } from '../../share.ts';
import { fieldErrorsOf } from '../../validation.ts';
import { quotedTicketRef } from '../../schemas.ts';
import { shareAuditEntry } from './share-audit.ts';
import type { ShareDeps } from './share-ports.ts';

const base64 = z.string().check(z.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'Must be base64.'));
const fingerprint = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'Must be a lower-case hex SHA-256 fingerprint.'));

/** The envelope the member's browser made: the same construction as a request's, sealed to one one-time key. */
const shareEnvelope = z.strictObject({
  version: z.literal(1),
  alg: z.literal('ECDH-ES+HKDF-SHA256+A256GCM'),
  ephemeral_public_key: base64.check(z.maxLength(200)),
  iv: base64.check(z.maxLength(40)),
  ciphertext: base64.check(z.maxLength(SHARE_LIMITS.envelopeBytes)),
  recipients: z
    .array(
      z.strictObject({
        membership_id: z.literal('share-recipient'),
        fingerprint,
        iv: base64.check(z.maxLength(40)),
        wrapped_key: base64.check(z.maxLength(200)),
      }),
    )
    .check(z.length(1, 'A share is sealed to exactly one one-time recipient key.')),
});

export const createShareBody = z.strictObject({
  envelope: shareEnvelope,
  sealed_to_fingerprint: fingerprint,
  label: z.nullish(z.string().check(z.trim(), z.maxLength(SHARE_LIMITS.label.max))),
  ticket_ref: z.nullish(quotedTicketRef()),
  expires_in_minutes: z._default(
    z.number().check(z.int(), z.gte(SHARE_LIMITS.expiresInMinutes.min), z.lte(SHARE_LIMITS.expiresInMinutes.max)),
    SHARE_LIMITS.expiresInMinutes.default,
  ),
  view_limit: z._default(z.number().check(z.int(), z.gte(SHARE_LIMITS.viewLimit.min), z.lte(SHARE_LIMITS.viewLimit.max)), SHARE_LIMITS.viewLimit.default),
});

export interface CreatedShare {
  share: ReturnType<typeof toShareView>;
  link: string;
}

/**
 * POST /app/api/shares. The link holds a random token (only its hash is stored); the member's
 * browser appends the one-time private key as the fragment, which never reaches the service. The
 * answer shows the link once: an idempotent replay answers it null (SPEC.md idempotency rule 2).
 */
export const createShare = async (deps: ShareDeps, caller: MemberCaller, rawBody: unknown, prepared?: (result: CreatedShare) => void): Promise<CreatedShare> => {
  // Every bad field at once: a mismatched fingerprint is listed beside the body's other errors.
  const parsed = createShareBody.safeParse(rawBody ?? {});
  const errors = parsed.success ? {} : fieldErrorsOf(parsed.error);
  const raw = rawBody as { sealed_to_fingerprint?: unknown; envelope?: { recipients?: Array<{ fingerprint?: unknown }> } } | null;
  const sealedTo = raw?.sealed_to_fingerprint;
  const inEnvelope = Array.isArray(raw?.envelope?.recipients) ? raw.envelope.recipients[0]?.fingerprint : undefined;
  if (!errors.sealed_to_fingerprint && typeof sealedTo === 'string' && typeof inEnvelope === 'string' && sealedTo !== inEnvelope) {
    errors.sealed_to_fingerprint = ['Must be the fingerprint the envelope is sealed to.'];
  }
  if (!parsed.success || Object.keys(errors).length > 0) throw validationFailed(errors);
  const body = parsed.data;
  const now = deps.clock.now();
  const at = now.toISOString();
  const id = newId();
  const token = randomToken();
  const share: Share = {
    id,
    orgId: caller.org.id,
    status: 'active',
    label: body.label ? body.label : null,
    ticketRef: body.ticket_ref ?? null,
    createdBy: { membershipId: caller.member.id, name: caller.member.name, email: caller.member.email },
    sealedToFingerprint: body.sealed_to_fingerprint,
    viewLimit: body.view_limit,
    views: 0,
    expiresAt: new Date(now.getTime() + body.expires_in_minutes * 60_000).toISOString(),
    createdAt: at,
    lastViewedAt: null,
    endedAt: null,
    endReason: null,
    purgeScheduledAt: null,
    updatedAt: at,
    version: 1,
  };
  const audit = shareAuditEntry(share, memberActor(caller.member), 'share.created', {
    view_limit: share.viewLimit,
    expires_at: share.expiresAt,
    ...(share.ticketRef ? { ticket_ref: share.ticketRef } : {}),
  });
  const result = { share: toShareView(share), link: `${deps.urls.appUrl}/s/${token}` };
  // Known before the share is stored, so a retry with the same Idempotency-Key replays this share
  // even when every answer of the call that stored it was lost, rather than storing a second one
  // whose envelope nobody holds a link to.
  prepared?.(result);
  await deps.shares.create(share, sha256Hex(token), body.envelope, audit);
  // Best effort, as for requests: the sweep expires a share whose schedule was lost.
  await deps.scheduler?.schedule(id, share.expiresAt).catch(() => undefined);
  return result;
};
