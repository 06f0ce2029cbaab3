import { listMemberShares } from '#core/use-cases/shares/member-shares.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/shares: the member's shares (every share of the organisation for owners and admins). */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, await listMemberShares(deps, caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
