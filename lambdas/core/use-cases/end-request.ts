import { apiActor, type Caller } from '../caller.ts';
import type { Clock } from '../clock.ts';
import { WriteConflict } from '../errors.ts';
import type { HandoffRequest } from '../model.ts';
import type { RequestRepository } from '../ports.ts';
import { complete, revoke } from '../request-state.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { findVisibleRequest } from './read-request.ts';

interface Deps {
  requests: RequestRepository;
  clock: Clock;
  urls: PublicUrls;
}

interface Ending {
  eventType: string;
  apply(request: HandoffRequest, at: string): HandoffRequest;
  details(request: HandoffRequest): Record<string, unknown>;
  purgeMaterial: boolean;
}

const MAX_RACES = 5;

/**
 * Applies a terminal transition with its audit entry in one transaction. If the request changed
 * between read and write, it is read again and the transition decided afresh (so a racing
 * revoke and complete cannot both win).
 */
const endRequest = async (deps: Deps, caller: Caller, requestId: string, ending: Ending) => {
  for (let race = 1; ; race++) {
    const before = await findVisibleRequest(deps.requests, caller, requestId);
    const at = deps.clock.now().toISOString();
    const after = ending.apply(before, at);
    const view = toRequestView(after, deps.urls);
    const actor = apiActor(caller);
    try {
      await deps.requests.update(
        before,
        after,
        {
          orgId: caller.org.id,
          type: ending.eventType,
          actor,
          clientId: after.client.id,
          requestId: after.id,
          data: { request: view, actor: { type: actor.type, label: actor.label }, details: ending.details(after) },
        },
        ending.purgeMaterial,
      );
      return view;
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
    }
  }
};

export const revokeRequest = (deps: Deps, caller: Caller, requestId: string) =>
  endRequest(deps, caller, requestId, {
    eventType: 'request.revoked',
    apply: (request, at) => revoke(request, at, 'revoked_via_api'),
    details: (request) => ({ revoked_reason: request.revokedReason }),
    purgeMaterial: false,
  });

export const completeRequest = (deps: Deps, caller: Caller, requestId: string) =>
  endRequest(deps, caller, requestId, {
    eventType: 'request.completed',
    apply: (request, at) => complete(request, at, 'completed_via_api'),
    details: (request) => ({ purge_reason: request.purgeReason }),
    purgeMaterial: true,
  });
