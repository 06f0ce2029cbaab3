import { approveIdentityKey } from '#core/use-cases/member-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/members/{id}/approve-key (owners and admins) */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event, body, deps: member }) =>
    json(200, await approveIdentityKey(member, caller, pathIdOf(event, 'member'), body)),
  );

export const handler = lazyHandler(() => createHandler(wiring()));
