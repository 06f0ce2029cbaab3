import type { HandoffRequest } from './model.ts';

export interface PublicUrls {
  /** The API root including `/v1`. */
  baseUrl: string;
  /** The web application's root. */
  appUrl: string;
}

/** The Request object of SPEC.md. It carries no envelope material, token, code or key. */
export const toRequestView = (request: HandoffRequest, urls: PublicUrls) => ({
  id: request.id,
  object: 'request' as const,
  status: request.status,
  client: { id: request.client.id, name: request.client.name },
  subject: { name: request.subject.name, email: request.subject.email, phone: request.subject.phone },
  ticket: request.ticket
    ? {
        ref: request.ticket.ref,
        url: request.ticket.url,
        external_id: request.ticket.externalId,
        integration_id: request.ticket.integrationId,
        status: request.ticket.status,
      }
    : null,
  justification: request.justification,
  template: request.template ? { id: request.template.id, name: request.template.name } : null,
  requester: {
    membership_id: request.requester.membershipId,
    name: request.requester.name,
    email: request.requester.email,
  },
  recipients: request.recipients.map((recipient) => ({ label: recipient.label, membership_id: recipient.membershipId })),
  ttl_minutes: request.ttlMinutes,
  verification_mode: request.verificationMode,
  allow_attachments: request.allowAttachments,
  attachments_count: request.attachmentsCount,
  // Only a link still to be used can need a new one: a submission that raced a key change, or a
  // locked link then revoked or expired, keeps the stored flag but has no link left to fix.
  needs_relink: request.needsRelink && (request.status === 'pending' || request.status === 'opened'),
  // Only a stored credential can be unrecoverable: once completed or expired it is destroyed, and
  // no member change judges the request again (a recipient enabled again would leave it stale).
  unrecoverable: request.unrecoverable && request.status === 'submitted',
  reveal_count: request.revealCount,
  purge_reason: request.purgeReason,
  revoked_reason: request.revokedReason,
  created_at: request.createdAt,
  link_expires_at: request.linkExpiresAt,
  opened_at: request.openedAt,
  submitted_at: request.submittedAt,
  record_expires_at: request.recordExpiresAt,
  last_revealed_at: request.lastRevealedAt,
  purge_scheduled_at: request.purgeScheduledAt,
  completed_at: request.completedAt,
  revoked_at: request.revokedAt,
  links: {
    self: `${urls.baseUrl}/requests/${request.id}`,
    app: `${urls.appUrl}/app/requests/${request.id}`,
  },
});

export type RequestView = ReturnType<typeof toRequestView>;
