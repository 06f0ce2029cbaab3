import { memberRevokeApiKey } from '#core/use-cases/member-api-keys.ts';
import { DynamoApiKeyStore } from '#store/api-key-store.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/keys/{id}/revoke (owners and admins): refused by the API from the next call on. */
export const createHandler = (deps: AppDeps) => {
  const apiKeys = new DynamoApiKeyStore(deps.db, deps.tableName, deps.audit);
  return sessionHandler(deps, async ({ caller, event, deps: member }) =>
    json(200, await memberRevokeApiKey({ ...member, apiKeys }, caller, pathIdOf(event, 'API key'))),
    { takesNoBody: true },
  );
};

export const handler = lazyHandler(() => createHandler(wiring()));
