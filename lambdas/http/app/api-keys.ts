import { listMemberApiKeys } from '#core/use-cases/member-api-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/keys (owners and admins): the organisation's API keys, never a key itself. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, deps: member }) => json(200, await listMemberApiKeys(member, caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
