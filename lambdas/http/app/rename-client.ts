import { clientView } from '#core/use-cases/organisation/member-app.ts';
import { renameClient } from '#core/use-cases/organisation/clients.ts';
import { managerActing } from '#core/use-cases/organisation/acting.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/clients/{id} (owners and admins): {name}; 200 the client renamed. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, body, event }) => {
    const acting = managerActing(caller, 'manage clients');
    const client = await renameClient(organisationDeps(deps), acting, caller.org.id, pathIdOf(event, 'client'), body);
    return json(200, clientView(client, caller.org.defaultClientId));
  });

export const handler = lazyHandler(() => createHandler(wiring()));
