import { memberCreateApiKey } from '#core/use-cases/member-api-keys.ts';
import { DynamoApiKeyStore } from '#store/api-key-store.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/keys (owners and admins): the key's secret is shown once, null in a replay. */
export const createHandler = (deps: AppDeps) => {
  const apiKeys = new DynamoApiKeyStore(deps.db, deps.tableName, deps.audit);
  return sessionHandler(
    deps,
    // The answer is stored with the key's creation: a retry after a lost answer replays it, never mints a second key.
    async ({ caller, body, deps: member, prepareReplay }) => json(201, await memberCreateApiKey({ ...member, apiKeys }, caller, body, (answer) => prepareReplay(json(201, answer)))),
    {
      idempotent: { secretFields: ['secret'] },
    },
  );
};

export const handler = lazyHandler(() => createHandler(wiring()));
