import { managerActing } from '#core/use-cases/organisation/acting.ts';
import { changeMemberRole } from '#core/use-cases/organisation/members.ts';
import { managedMemberView } from '#core/use-cases/member-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/members/{id}/role (owners and admins): {role}; 200 the member as listed. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, body, event }) => {
    const acting = managerActing(caller, 'manage members');
    return json(200, managedMemberView(await changeMemberRole(organisationDeps(deps), acting, caller.org.id, pathIdOf(event, 'member'), body)));
  });

export const handler = lazyHandler(() => createHandler(wiring()));
