import { teamAnswer } from '#core/use-cases/organisation/member-app.ts';
import { createTeam } from '#core/use-cases/organisation/teams.ts';
import { managerActing } from '#core/use-cases/organisation/acting.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/teams (owners and admins): {name, member_ids?}; 201 the team. Takes an `Idempotency-Key`. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    async ({ caller, body, prepareReplay }) => {
      const organisation = organisationDeps(deps);
      // The answer is stored with the team: a retry after a lost answer replays it, never creates a second one.
      const team = await createTeam(organisation, managerActing(caller, 'manage teams'), caller.org.id, body, async (made) => prepareReplay(json(201, await teamAnswer(organisation, made))));
      return json(201, await teamAnswer(organisation, team));
    },
    { idempotent: { secretFields: [] } },
  );

export const handler = lazyHandler(() => createHandler(wiring()));
