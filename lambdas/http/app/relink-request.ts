import { relinkAsMember } from '#core/use-cases/member-requests.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { relinking } from '../../deployed/relinking.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { RELINK_SECRET_FIELDS } from '../handlers/relink-request.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/requests/{id}/relink: a new link and code for the request, shown once; the old ones stop working at once. */
export const createHandler = (deps: AppDeps) =>
  // The answer is stored with the new link: a retry after a lost answer replays it (link and code null) instead of making another.
  sessionHandler(deps, async ({ caller, event, deps: member, prepareReplay }) =>
    json(200, await relinkAsMember(member, caller, pathIdOf(event, 'request'), (result) => prepareReplay(json(200, result)))), {
    idempotent: { secretFields: RELINK_SECRET_FIELDS },
    takesNoBody: true,
  });

export const handler = lazyHandler(() => createHandler(wiring(relinking())));
