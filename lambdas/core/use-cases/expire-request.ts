import type { Clock } from '../clock.ts';
import { WriteConflict } from '../errors.ts';
import { forEachDuePage } from '../due-pages.ts';
import { forEachLimited } from '../each-limited.ts';
import type { Actor } from '../model.ts';
import type { DuePaging, DueRequests, HandoffRepository } from '../ports.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { dueAt, expire } from '../subject-flow.ts';

export interface ExpiryDeps {
  requests: Pick<HandoffRepository, 'get' | 'update'>;
  clock: Clock;
  urls: PublicUrls;
}

/** Who expires requests, as the audit trail and the events show it. */
export const EXPIRY_ACTOR: Actor = { type: 'system', label: 'expiry' };

/**
 * - `expired`: the request was due and is now expired, its material deleted;
 * - `not_due`: still live, due later (an early or stale trigger: nothing done);
 * - `ended`: already completed, revoked or expired (nothing done);
 * - `missing`: no such request.
 */
export type ExpiryOutcome = 'expired' | 'not_due' | 'ended' | 'missing';

const MAX_RACES = 5;

/**
 * Expires one request if it is due: a pending or opened request past link_expires_at, or a
 * submitted one past record_expires_at. The status change, the deletion of the stored envelope
 * and attachments, and the `request.expired` audit entry go in one transaction. If the request
 * changed between read and write (a submission, a revoke), it is read again and decided afresh.
 * Idempotent: a second trigger for the same request does nothing.
 */
export const expireRequest = async (deps: ExpiryDeps, requestId: string): Promise<ExpiryOutcome> => {
  for (let race = 1; ; race++) {
    const before = await deps.requests.get(requestId);
    if (!before) return 'missing';
    const after = expire(before, deps.clock.now());
    if (!after) return dueAt(before) ? 'not_due' : 'ended';
    const view = toRequestView(after, deps.urls);
    try {
      await deps.requests.update(
        before,
        after,
        {
          orgId: after.orgId,
          type: 'request.expired',
          actor: EXPIRY_ACTOR,
          clientId: after.client.id,
          requestId: after.id,
          data: {
            request: view,
            actor: { type: EXPIRY_ACTOR.type, label: EXPIRY_ACTOR.label },
            details: { purge_reason: 'expired', previous_status: before.status },
          },
        },
        true,
      );
      return 'expired';
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
    }
  }
};

export interface SweepResult {
  /** Requests this sweep expired. */
  expired: number;
  /** Requests whose ticket-close grace period had ended, completed by this sweep. */
  purged: number;
  /** Ids it could not expire (an error other than a lost race); the next sweep tries again. */
  failed: string[];
}

export interface SweepOptions {
  /** Requests expired at once. */
  concurrency?: number;
  /** Index pages read per sweep; each round reads up to `pageSize` ids per shard. */
  maxRounds?: number;
  /** Ids read per shard per round; the store's default if absent. */
  pageSize?: number;
  onFailure?: (error: unknown, requestId: string) => void;
  /** What to do with each listed request; default: expire it if due. The wired sweep also purges (purge-request.ts). */
  settle?: (requestId: string) => Promise<string>;
}

/**
 * The safety net behind the one-time schedules: finds every live request due by now through the
 * byDue index and expires it. Each round reads the index's next page (due-pages.ts), so a backlog
 * larger than one page is worked off in one sweep; an id the (eventually consistent) index still
 * lists after its request ended is read, found ended, and skipped.
 */
export const sweepDue = async (deps: ExpiryDeps & { dueRequests: DueRequests }, options: SweepOptions = {}): Promise<SweepResult> => {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const failed: string[] = [];
  const settle = options.settle ?? ((id: string) => expireRequest(deps, id));
  let expired = 0;
  let purged = 0;
  const read = (page: DuePaging) => deps.dueRequests.dueBy(deps.clock.now(), page);
  await forEachDuePage(read, options, (ids) =>
    forEachLimited(ids, concurrency, async (id) => {
      try {
        const outcome = await settle(id);
        if (outcome === 'expired') expired += 1;
        if (outcome === 'purged') purged += 1;
      } catch (error) {
        failed.push(id);
        options.onFailure?.(error, id);
      }
    }),
  );
  return { expired, purged, failed };
};
