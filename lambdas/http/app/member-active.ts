import { managerActing } from '#core/use-cases/organisation/acting.ts';
import { setMemberActive } from '#core/use-cases/organisation/members.ts';
import { managedMemberView } from '#core/use-cases/member-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/members/{id}/disable and /enable (owners and admins): one function for both
 * routes, told apart by the route. 200 the member as listed; a disabled member's sessions end at once.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event }) => {
    const acting = managerActing(caller, 'manage members');
    const active = event.routeKey.endsWith('/enable');
    return json(200, managedMemberView(await setMemberActive(organisationDeps(deps), acting, caller.org.id, pathIdOf(event, 'member'), active)));
  }, { takesNoBody: true });

export const handler = lazyHandler(() => createHandler(wiring()));
