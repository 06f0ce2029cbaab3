import { listMemberShares } from '#core/use-cases/shares/member-shares.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore, type WithShares } from '../../store-wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/shares: the member's shares (every share of the organisation for owners and admins). */
export const createHandler = (deps: WithShares) => sessionHandler(deps, async ({ caller }) => json(200, await listMemberShares(deps, caller)));

export const handler = lazyHandler(() => createHandler(withShareStore(wiring())));
