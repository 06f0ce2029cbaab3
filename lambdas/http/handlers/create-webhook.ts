import { createWebhook } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { ROUTES } from '../routes.ts';

/** POST /v1/webhooks */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: ROUTES.createWebhook.scope,
    secretFields: ['secret'],
    handle: async ({ caller, body }) => {
      const result = await createWebhook(deps, caller, body);
      return json(201, result, { Location: `${deps.urls.baseUrl}/webhooks/${result.id}`, 'Cache-Control': 'no-store' });
    },
  });

export const handler = lazyHandler(() => createHandler(wiring()));
