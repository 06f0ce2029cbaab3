import { completeAsMember } from '#core/use-cases/member-requests.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/requests/{id}/complete: completes and purges at once. */
export const createHandler = (deps: AppDeps) =>
  // The answer is stored with the completion: a retry after a lost answer replays it instead of answering 409.
  sessionHandler(deps, async ({ caller, event, deps: member, prepareReplay }) =>
    json(200, await completeAsMember(member, caller, pathIdOf(event, 'request'), (view) => prepareReplay(json(200, view)))),
    { takesNoBody: true },
  );

export const handler = lazyHandler(() => createHandler(wiring(expirySchedules())));
