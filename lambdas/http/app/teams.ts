import { listTeams } from '#core/use-cases/organisation/member-app.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/teams (owners and admins) */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, await listTeams(organisationDeps(deps), caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
