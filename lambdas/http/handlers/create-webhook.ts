import { apiWebhookManager, createWebhook } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { kmsSealing } from '../../deployed/kms-sealing.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** POST /v1/webhooks */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return apiHandler(deps, {
    scope: API_ROUTES.createWebhook.scope,
    secretFields: ['secret'],
    handle: async ({ caller, body, prepareReplay }) => {
      const answer = (result: { id: string }) => json(201, result, { Location: `${deps.urls.baseUrl}/webhooks/${result.id}` });
      return answer(await createWebhook(deps, apiWebhookManager(caller), body, (prepared) => prepareReplay(answer(prepared))));
    },
  });
};

export const handler = lazyHandler(() => createHandler(wiring(kmsSealing())));
