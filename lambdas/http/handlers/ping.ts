import { ping } from '#core/use-cases/ping.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** GET /v1/ping */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.ping.scope,
    handle: async ({ caller }) => json(200, await ping(deps.directory, caller)),
  });

export const handler = lazyHandler(() => createHandler(wiring()));
