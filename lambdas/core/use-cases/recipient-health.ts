import type { AuditType } from '../audit-types.ts';
import type { Clock } from '../clock.ts';
import { forEachLimited } from '../each-limited.ts';
import { ApiError, serviceUnavailable } from '../errors.ts';
import type { Actor, HandoffRequest, RequestStatus } from '../model.ts';
import type { Directory, HandoffRepository } from '../ports.ts';
import { checkRecipients, keyChangesNow, membersById, noRecipientCanOpen, unrecordedKeyChanges, unrecoverableDetails, type MembersById } from '../recipient-health.ts';
import { requestAuditEntry } from '../request-audit.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { applyChange, readAgain, type RequestChange } from './apply-change.ts';

export interface RecipientHealthDeps {
  requests: Pick<HandoffRepository, 'get' | 'update' | 'submit' | 'list'>;
  directory: Pick<Directory, 'listMembers'>;
  clock: Clock;
  urls: PublicUrls;
}

/** The statuses whose flags depend on the recipients: a link still to be used, a credential still stored. */
const LIVE: RequestStatus[] = ['pending', 'opened', 'submitted'];
const PAGE = 100;
/** Live requests of one status looked through per member change; an organisation with more is read in part (docs/handoff.md). */
const MAX_PER_STATUS = 2_000;

/**
 * After a member's key is replaced, or the member disabled or enabled: the organisation's live
 * requests that member receives get `needs_relink` (a pending or opened link the subject's page
 * would now refuse) and `unrecoverable` (a stored credential no recipient can open any more, or
 * can again) set to what the members are now, each change with its own audit entry.
 * `request.unrecoverable` is an event, so the requester's integration hears of it.
 */
export const refreshRecipientHealth = async (deps: RecipientHealthDeps, orgId: string, memberId: string, actor: Actor) => {
  let members = await membersById(deps.directory, orgId);
  const affected = await liveRequestsReceivedBy(deps, orgId, memberId);
  // The members may change again while this runs (a disable undone at once), and the refresh of
  // that change, finding nothing written yet, changes nothing: so the members are read again at
  // the end, and the requests judged again while they moved, so the last word is the members' now.
  for (let round = 1; ; round++) {
    const judgedBy = members;
    await forEachLimited(affected, REQUESTS_AT_ONCE, async (request) => void (await applyRecipientHealth(deps, request, judgedBy, actor)));
    const now = await membersById(deps.directory, orgId);
    if (sameRecipientState(members, now) || round >= MAX_ROUNDS) break;
    members = now;
  }
  return affected.length;
};

/**
 * The refresh that follows a member change already stored (a disable, a new key): when it fails
 * (its requests busy with other changes, the table unavailable), the caller must not be told that
 * nothing changed. 503 says what is so: the change stands, and the same call again (which
 * refreshes even when there is nothing left to change) finishes the refresh.
 */
export const refreshAfterMemberChange = async (deps: RecipientHealthDeps, orgId: string, memberId: string, actor: Actor) => {
  try {
    await refreshRecipientHealth(deps, orgId, memberId, actor);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw serviceUnavailable(1, REFRESH_UNFINISHED, { cause: error });
  }
};

export const REFRESH_UNFINISHED =
  'The change was made, but marking the requests it affects (needs_relink, unrecoverable) did not finish. Send the same call again after the time in Retry-After to finish it.';

/**
 * Requests judged at once: each is read again before it is judged, and one after another a member
 * received by a few thousand live requests took longer than the member change's function may run
 * (measured locally: 5 s for 2,000); their changes still join the audit chain one at a time.
 */
const REQUESTS_AT_ONCE = 8;

/** Rounds of a refresh whose members keep changing; the next member change refreshes again anyway. */
const MAX_ROUNDS = 3;

/** Whether every member is as active, and holds the same key, in both readings. */
const sameRecipientState = (before: MembersById, after: MembersById) =>
  before.size === after.size &&
  [...before].every(([id, member]) => {
    const now = after.get(id);
    return now !== undefined && now.active === member.active && now.identityKey?.fingerprint === member.identityKey?.fingerprint;
  });

/**
 * `request` judged by what its recipients are now (`members`), the change recipientHealthChange
 * decides written with its entry (read again and judged afresh on a lost race). Answers the
 * request as it now stands.
 */
export const applyRecipientHealth = (deps: Pick<RecipientHealthDeps, 'requests' | 'clock' | 'urls'>, request: HandoffRequest, members: MembersById, actor: Actor) =>
  applyChange(
    deps.requests,
    readAgain(deps.requests, request),
    (current) => recipientHealthChange(deps, current, members, actor),
    (current, change) => change?.after ?? current,
  );

const liveRequestsReceivedBy = async (deps: RecipientHealthDeps, orgId: string, memberId: string) => {
  const found: HandoffRequest[] = [];
  for (const status of LIVE) {
    let cursor: string | undefined;
    let seen = 0;
    do {
      const page = await deps.requests.list({ orgId, status, limit: PAGE, cursor });
      found.push(...page.items.filter((request) => request.recipients.some((recipient) => recipient.membershipId === memberId)));
      seen += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor && seen < MAX_PER_STATUS);
  }
  return found;
};

/**
 * The change `current` needs from what its recipients are now (`members`), or null: a pending or
 * opened link newly unusable, a further recipient key change on one already marked, or a
 * submitted credential newly (un)recoverable.
 */
export const recipientHealthChange = (
  deps: Pick<RecipientHealthDeps, 'clock' | 'urls'>,
  current: HandoffRequest,
  members: MembersById,
  actor: Actor,
): RequestChange | null => {
  const checks = checkRecipients(current, members);
  const at = deps.clock.now().toISOString();
  const change = (after: HandoffRequest, type: AuditType, details: Record<string, unknown>): RequestChange => ({
    after,
    audit: requestAuditEntry(current.orgId, actor, toRequestView(after, deps.urls), type, details),
  });
  if (current.status === 'pending' || current.status === 'opened') {
    const unrecorded = new Set(unrecordedKeyChanges(current, members).map((change) => change.membershipId));
    if (unrecorded.size === 0) return null;
    const recipients = current.recipients.filter((recipient) => unrecorded.has(recipient.membershipId)).map((recipient) => recipient.label);
    const after = { ...current, needsRelink: true, keyChangesRecorded: keyChangesNow(current, members), updatedAt: at };
    // Once a link is unusable it stays so until a relink (the subject may already have been
    // refused, and a locked link stays locked); a later key change still goes on its trail, once,
    // so that every change of a recipient's key the link was made for is there to be read.
    const type = current.needsRelink ? 'request.recipient_key_changed' : 'request.needs_relink';
    return change(after, type, { reason: 'recipient_key_changed', recipients });
  }
  if (current.status !== 'submitted') return null;
  const unrecoverable = noRecipientCanOpen(checks);
  if (unrecoverable === current.unrecoverable) return null;
  return unrecoverable
    ? change({ ...current, unrecoverable, updatedAt: at }, 'request.unrecoverable', unrecoverableDetails(checks))
    : change({ ...current, unrecoverable, updatedAt: at }, 'request.recoverable', { reason: 'recipient_can_open_again' });
};

/** Who flags a credential that arrived sealed to recipients who cannot open it. */
export const SUBMISSION_CHECK_ACTOR: Actor = { type: 'system', label: 'recipient check at submission' };

/**
 * Right after a submission: a credential sealed only to recipients who cannot open it (each
 * disabled before the subject sent it, or their key replaced meanwhile) is flagged
 * `unrecoverable` at once, with its event, as a later member change would flag it. Without this,
 * no member change comes, and the requester never hears that nobody can open what arrived.
 * Answers the request as it now stands.
 */
export const flagIfUnrecoverable = async (deps: Pick<RecipientHealthDeps, 'requests' | 'directory' | 'clock' | 'urls'>, submitted: HandoffRequest) => {
  return applyRecipientHealth(deps, submitted, await membersById(deps.directory, submitted.orgId), SUBMISSION_CHECK_ACTOR);
};
