import { readMemberRequest } from '#core/use-cases/member-requests.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** GET /app/api/requests/{id}: the request and its audit trail. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event, deps: member }) =>
    json(200, await readMemberRequest(member, caller, pathIdOf(event, 'request'))),
  );

export const handler = lazyHandler(() => createHandler(wiring()));
