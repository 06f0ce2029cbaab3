import type { AuditType } from '../audit-types.ts';
import { apiActor, type Caller } from '../caller.ts';
import type { Clock } from '../clock.ts';
import { WriteConflict } from '../errors.ts';
import { raceBackoff } from '../race-backoff.ts';
import { syncExpirySchedule, type ExpiryScheduling } from '../expiry-schedule.ts';
import type { Actor, HandoffRequest } from '../model.ts';
import type { RequestRepository } from '../ports.ts';
import { complete, revoke, type RequestEndReason } from '../request-state.ts';
import { requestAuditEntry } from '../request-audit.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { expire } from '../subject-flow.ts';
import { expireRequest } from './expire-request.ts';
import { findVisibleRequest } from './read-request.ts';

interface Deps extends ExpiryScheduling {
  requests: Pick<RequestRepository, 'get' | 'update'>;
  clock: Clock;
  urls: PublicUrls;
}

export interface Ending {
  eventType: AuditType;
  apply(request: HandoffRequest, at: string): HandoffRequest;
  details(request: HandoffRequest): Record<string, unknown>;
  purgeMaterial: boolean;
  /** Whether the organisation's rotation signal (policy) follows this ending with credential.rotation_recommended. */
  signalsRotation?: boolean;
}

const MAX_RACES = 5;

/** Who ends a request: how they find it (404/403 as their access allows) and how the audit names them. */
export interface EndingParty {
  orgId: string;
  actor: Actor;
  load(requestId: string): Promise<HandoffRequest>;
  /** Further event data about the party (for example the acting `member`). */
  data?: Record<string, unknown>;
  /** The organisation's policy `rotationSignal`. */
  rotationSignal?: boolean;
}

/** An API key's caller: requests within its organisation and client scope. */
export const apiParty = (deps: { requests: Pick<RequestRepository, 'get'> }, caller: Caller): EndingParty => ({
  orgId: caller.org.id,
  actor: apiActor(caller),
  rotationSignal: caller.org.policy.rotationSignal,
  load: (requestId) => findVisibleRequest(deps.requests, caller, requestId),
});

/** Given the answer just before the change is written: the caller's replay can go in the same transaction. */
export type Prepared = (view: ReturnType<typeof toRequestView>) => void;

/**
 * Applies a terminal transition with its audit entry in one transaction. If the request changed
 * between read and write, it is read again and the transition decided afresh (so a racing
 * revoke and complete cannot both win).
 */
export const endRequest = async (deps: Deps, party: EndingParty, requestId: string, ending: Ending, prepared?: Prepared) => {
  for (let race = 1; ; race++) {
    const before = await party.load(requestId);
    if (expire(before, deps.clock.now())) {
      // Its deadline passed before the expiry worker ran: it expired, and is recorded so (not as
      // revoked or completed); the re-read then refuses the ending as for any expired request.
      await expireRequest(deps, requestId);
      continue;
    }
    const at = deps.clock.now().toISOString();
    const after = ending.apply(before, at);
    const view = toRequestView(after, deps.urls);
    const entry = (type: AuditType, details: Record<string, unknown>) =>
      requestAuditEntry(party.orgId, party.actor, view, type, details, party.data);
    // The rotation signal goes in the same transaction as the completion: it exists exactly when the completion does.
    const followUps =
      ending.signalsRotation && party.rotationSignal
        ? [entry('credential.rotation_recommended', { reason: 'credential_handed_over', ...ending.details(after) })]
        : [];
    prepared?.(view);
    try {
      await deps.requests.update(before, after, entry(ending.eventType, ending.details(after)), ending.purgeMaterial, followUps);
      // The request has ended: its expiry schedule is no longer needed (a failure is tolerated).
      await syncExpirySchedule(deps, after);
      return view;
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
      await raceBackoff(race);
    }
  }
};

/** Revocation: the link stops working at once; nothing was submitted, so nothing is purged. */
export const revocation = (revokedReason: RequestEndReason): Ending => ({
  eventType: 'request.revoked',
  apply: (request, at) => revoke(request, at, revokedReason),
  details: (request) => ({ revoked_reason: request.revokedReason }),
  purgeMaterial: false,
});

export const revokeRequest = (deps: Deps, caller: Caller, requestId: string, prepared?: Prepared) =>
  endRequest(deps, apiParty(deps, caller), requestId, revocation('revoked_via_api'), prepared);

/** Completion: the request is marked completed and its envelope and attachments purged at once. */
export const completion = (purgeReason: RequestEndReason): Ending => ({
  eventType: 'request.completed',
  apply: (request, at) => complete(request, at, purgeReason),
  details: (request) => ({ purge_reason: request.purgeReason }),
  purgeMaterial: true,
  signalsRotation: true,
});

export const completeRequest = (deps: Deps, caller: Caller, requestId: string, prepared?: Prepared) =>
  endRequest(deps, apiParty(deps, caller), requestId, completion('completed_via_api'), prepared);
