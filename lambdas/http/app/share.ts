import { readMemberShare } from '#core/use-cases/shares/member-shares.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore, type WithShares } from '../../store-wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** GET /app/api/shares/{id} */
export const createHandler = (deps: WithShares) =>
  sessionHandler(deps, async ({ caller, event }) => json(200, await readMemberShare(deps, caller, pathIdOf(event, 'share'))));

export const handler = lazyHandler(() => createHandler(withShareStore(wiring())));
