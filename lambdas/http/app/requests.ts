import { listMemberRequests } from '#core/use-cases/member-requests.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/requests */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, deps: member }) => json(200, await listMemberRequests(member, caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
