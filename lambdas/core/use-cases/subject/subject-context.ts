import type { Clock } from '../../clock.ts';
import type { CodeKey } from '../../code-key.ts';
import type { ExpiryScheduling } from '../../expiry-schedule.ts';
import type { AuditType } from '../../audit-types.ts';
import type { HandoffRequest, Organisation } from '../../model.ts';
import type { AuditEntryInput, AuditTrail, Directory, HandoffRepository, Notifier } from '../../ports.ts';
import { toRequestView, type PublicUrls } from '../../request-view.ts';

export interface SubjectDeps extends ExpiryScheduling {
  requests: HandoffRepository;
  directory: Directory;
  audit: AuditTrail;
  notifier: Notifier;
  clock: Clock;
  urls: PublicUrls;
  /** The emailed and challenge codes are stored, and checked, as keyed hashes under it. */
  codeKey: CodeKey;
  /** Where a follow-up that failed after the change was stored is told. */
  logger?: { warn(message: string, extra: Record<string, unknown>): void };
}

/** The request the link token opened, its organisation, and the hash of the token presented. */
export interface LinkHolder {
  request: HandoffRequest;
  org: Organisation;
  /**
   * Checked again on every read of the request a change is decided on: a new link issued while a
   * call of the old one was in flight (read, then written) kills the old one for that call too.
   */
  tokenHash: string;
  /**
   * The SHA-256 hash of the subject pass the caller sent in `X-Subject-Pass` (issued by a verify
   * call that passed a code), or null without one. Codes passed count only for the current pass.
   */
  passHash: string | null;
}

export const subjectActor = (request: HandoffRequest) => ({ type: 'subject' as const, label: request.subject.name });

/** An audit entry about this request, done by the subject. */
export const subjectAudit = (
  deps: Pick<SubjectDeps, 'urls'>,
  request: HandoffRequest,
  type: AuditType,
  details: Record<string, unknown> = {},
): AuditEntryInput => {
  const actor = subjectActor(request);
  return {
    orgId: request.orgId,
    type,
    actor,
    clientId: request.client.id,
    requestId: request.id,
    data: { request: toRequestView(request, deps.urls), actor, details },
  };
};
