import { purgeMemberShare } from '#core/use-cases/shares/member-shares.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore, type WithShares } from '../../store-wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/shares/{id}/purge: destroys a live share before it is opened. */
export const createHandler = (deps: WithShares) =>
  // The answer is stored with the purge: a retry after a lost answer replays it instead of answering 409.
  sessionHandler(deps, async ({ caller, event, prepareReplay }) =>
    json(200, await purgeMemberShare(deps, caller, pathIdOf(event, 'share'), (view) => prepareReplay(json(200, view)))), {
    takesNoBody: true,
  });

export const handler = lazyHandler(() => createHandler(withShareStore(wiring(expirySchedules()))));
