import { decideReplacedKey } from '#core/use-cases/member-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/members/{id}/approve-key and /refuse-key (owners and admins): one function for
 * both routes, told apart by the route. 200 the member as listed.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event, body, deps: member, prepareReplay }) => {
    const decision = event.routeKey.endsWith('/refuse-key') ? 'refuse' : 'approve';
    // The answer is stored with the decision: a retry after a lost answer replays it instead of answering 409.
    return json(200, await decideReplacedKey(member, caller, pathIdOf(event, 'member'), body, decision, (view) => prepareReplay(json(200, view))));
  });

export const handler = lazyHandler(() => createHandler(wiring()));
