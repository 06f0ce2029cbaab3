import { idsOf } from '#core/api-reads.ts';
import { apiWebhookManager, listWebhooks } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** GET /v1/webhooks */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return apiHandler(deps, {
    scope: API_ROUTES.listWebhooks.scope,
    reads: {},
    handle: async ({ caller, noteRead }) => {
      const page = await listWebhooks(deps, apiWebhookManager(caller));
      await noteRead({ webhooks: idsOf(page.data) });
      return json(200, page);
    },
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));
