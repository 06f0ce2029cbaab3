import type { Clock } from '../../clock.ts';
import type { AuditEntry, AuditEntryInput, DuePage, DuePaging, ExpiryScheduler } from '../../ports.ts';
import type { PublicUrls } from '../../request-view.ts';
import type { Share } from '../../share.ts';

/**
 * What a ticket status's change of a share is conditioned on: the integration it came through
 * still at the version read, the organisation's policy still at the version it was judged under.
 */
export interface ShareWriteConditions {
  integration?: { id: string; version: number };
  policyVersion?: number;
}

export interface ShareRepository {
  get(shareId: string): Promise<Share | null>;
  findByLinkTokenHash(tokenHash: string): Promise<Share | null>;
  envelope(shareId: string): Promise<object | null>;
  /** The share, its ciphertext, its link token's hash and the `share.created` entry, in one transaction. */
  create(share: Share, linkTokenHash: string, envelope: object, audit: AuditEntryInput): Promise<AuditEntry>;
  /**
   * Replaces `before` with `after` if unchanged meanwhile (else WriteConflict), deleting the
   * ciphertext when `purgeMaterial`, with the entries; also on `conditions` (a ticket status's).
   */
  update(before: Share, after: Share, entries: AuditEntryInput[], purgeMaterial: boolean, conditions?: ShareWriteConditions): Promise<AuditEntry>;
  list(orgId: string, limit: number, cursor?: string): Promise<{ items: Share[]; nextCursor: string | null }>;
  findByTicket(orgId: string, ref: string): Promise<Share[]>;
  /** A page of the byDue index's share shards: ids of live shares due at or before `now`, going on from `page.after`. */
  dueBy(now: Date, page?: DuePaging): Promise<DuePage>;
}

export interface ShareDeps {
  shares: ShareRepository;
  clock: Clock;
  urls: PublicUrls;
  /** Arms the share's expiry (the same one-time triggers as requests, told apart by id). */
  scheduler?: ExpiryScheduler;
}
