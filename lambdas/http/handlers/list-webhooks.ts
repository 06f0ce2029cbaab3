import { apiWebhookManager, listWebhooks } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** GET /v1/webhooks */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.listWebhooks.scope,
    handle: async ({ caller }) => json(200, await listWebhooks(deps, apiWebhookManager(caller))),
  });

export const handler = lazyHandler(() => createHandler(wiring()));
