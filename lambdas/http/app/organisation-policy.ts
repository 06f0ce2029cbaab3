import { memberPolicy } from '#core/use-cases/organisation/member-settings.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/organisation/policy (owners and admins): the policy and what its fields may be. */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, memberPolicy(caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
