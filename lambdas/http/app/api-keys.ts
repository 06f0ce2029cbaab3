import { listMemberApiKeys } from '#core/use-cases/member-api-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withApiKeyStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/keys (owners and admins): the organisation's API keys, never a key itself. */
export const createHandler = (appDeps: AppDeps) => {
  // The API keys' store is added by the functions that read it (store-wiring.ts).
  const deps = withApiKeyStore(appDeps);
  return sessionHandler(deps, async ({ caller }) => json(200, await listMemberApiKeys(deps, caller)));
};

export const handler = lazyHandler(() => createHandler(wiring()));
