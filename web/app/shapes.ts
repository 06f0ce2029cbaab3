/**
 * The shapes of the /app/api answers (docs/web-api.md) that more than one page of the member
 * application reads.
 */
export interface IdentityKey {
  fingerprint: string;
  state: string;
  /** `operator`: made outside the member's browser (a key file on the operator's machine); their own key replaces it at once. */
  made_by: 'member' | 'operator';
}

export interface Member {
  membership_id: string;
  name: string | null;
  email: string | null;
  role: string;
  identity_key: IdentityKey | null;
}

/** GET /app/api/me, and the answer of a sign-in (POST /app/api/session). */
export interface Me {
  member: Member;
  organisation: { id: string; name: string };
  csrf_token: string;
}

/**
 * A request as /app/api/requests answers it: the same view as the API's Request object, so the
 * server's type is used rather than a copy (a type-only import; nothing of the server is bundled).
 */
import type { RequestView } from '../../lambdas/core/request-view.ts';
export type { RequestView };

/** A row of My requests: the request, and whether its subject reported it as unexpected. */
export type ListedRequest = RequestView & { reported: boolean };

export interface AuditEntry {
  seq: number;
  type: string;
  occurred_at: string;
  actor: { type: string; label: string | null } | null;
  details: Record<string, unknown> | null;
}

/** A preset's saved request defaults, as /app/api/request-options and /app/api/presets give them. */
export interface PresetDefaults {
  justification?: string;
  ttl_minutes?: number;
  verification_mode?: string;
  template_id?: string;
  recipients?: string[];
  delivery?: { method: string };
  allow_attachments?: boolean;
}
