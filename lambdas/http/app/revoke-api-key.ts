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
  // The answer is stored with the revocation: a retry after a lost answer replays it instead of answering 409.
  return sessionHandler(deps, async ({ caller, event, deps: member, prepareReplay }) =>
    json(200, await memberRevokeApiKey({ ...member, apiKeys }, caller, pathIdOf(event, 'API key'), (answer) => prepareReplay(json(200, answer)))),
    { takesNoBody: true },
  );
};

export const handler = lazyHandler(() => createHandler(wiring()));
