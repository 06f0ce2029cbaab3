import type { Actor } from '../../model.ts';
import type { AuditEntryInput } from '../../ports.ts';
import { toShareView, type Share } from '../../share.ts';

/** The share custody entries of the audit chain, and the ticket statuses a share took (never events of the feed: SPEC.md lists none for shares). */
export type ShareAuditType = 'share.created' | 'share.revealed' | 'share.expired' | 'share.purged' | 'ticket.status_received';

/** An entry about a share: the share as it is after the change, who did it, the details. Never the ciphertext or the link. */
export const shareAuditEntry = (share: Share, actor: Actor, type: ShareAuditType, details: Record<string, unknown>): AuditEntryInput => ({
  orgId: share.orgId,
  type,
  actor,
  clientId: null,
  requestId: null,
  shareId: share.id,
  data: { share: toShareView(share), actor: { type: actor.type, label: actor.label }, details },
});

/** Who ends a share whose time ran out: the same words as a request's expiry. */
export const SHARE_EXPIRY_ACTOR: Actor = { type: 'system', label: 'expiry' };
