import { describeMember } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/me */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, describeMember(caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
