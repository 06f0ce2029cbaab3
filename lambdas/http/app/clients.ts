import { listClients } from '#core/use-cases/organisation/member-app.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/clients (owners and admins) */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, await listClients(organisationDeps(deps), caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
