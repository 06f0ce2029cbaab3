import { teamAnswer } from '#core/use-cases/organisation/member-app.ts';
import { changeTeam } from '#core/use-cases/organisation/teams.ts';
import { managerActing } from '#core/use-cases/organisation/acting.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/teams/{id} (owners and admins): {name?, member_ids?}, at least one; 200 the team renamed, with its members now. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, body, event }) => {
    const organisation = organisationDeps(deps);
    const acting = managerActing(caller, 'manage teams');
    const team = await changeTeam(organisation, acting, caller.org.id, pathIdOf(event, 'team'), body);
    return json(200, await teamAnswer(organisation, team));
  });

export const handler = lazyHandler(() => createHandler(wiring()));
