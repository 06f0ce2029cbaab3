import { readMemberShare } from '#core/use-cases/shares/member-shares.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** GET /app/api/shares/{id} */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event }) => json(200, await readMemberShare(deps, caller, pathIdOf(event, 'share'))));

export const handler = lazyHandler(() => createHandler(wiring()));
