import type { Client } from '#core/model.ts';
import { clientView } from '#core/use-cases/organisation/member-app.ts';
import { createClient } from '#core/use-cases/organisation/clients.ts';
import { managerActing } from '#core/use-cases/organisation/acting.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/clients (owners and admins): 201 the client. Takes an `Idempotency-Key`. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    async ({ caller, body, prepareReplay }) => {
      const answer = (client: Client) => json(201, clientView(client, caller.org.defaultClientId));
      // The answer is stored with the client: a retry after a lost answer replays it, never creates a second one.
      return answer(await createClient(organisationDeps(deps), managerActing(caller, 'manage clients'), caller.org.id, body, (client) => prepareReplay(answer(client))));
    },
    { idempotent: { secretFields: [] } },
  );

export const handler = lazyHandler(() => createHandler(wiring()));
