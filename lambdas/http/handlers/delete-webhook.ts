import { notFound } from '#core/errors.ts';
import { isId } from '#core/ids.ts';
import { apiWebhookManager, deleteWebhook } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { noContent } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** DELETE /v1/webhooks/{id} */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return apiHandler(deps, {
    scope: API_ROUTES.deleteWebhook.scope,
    handle: async ({ caller, event }) => {
      const id = event.pathParameters?.id;
      // An id that cannot exist is simply not found.
      if (!isId(id)) throw notFound('No webhook with this id.');
      await deleteWebhook(deps, apiWebhookManager(caller), id);
      return noContent();
    },
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));
