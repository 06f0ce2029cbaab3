import { toRequestView } from '#core/request-view.ts';
import { findVisibleRequest } from '#core/use-cases/read-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { ROUTES } from '../routes.ts';
import { requestIdOf } from './request-path.ts';

/** GET /v1/requests/{id} */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: ROUTES.getRequest.scope,
    handle: async ({ caller, event }) =>
      json(200, toRequestView(await findVisibleRequest(deps.requests, caller, requestIdOf(event)), deps.urls)),
  });

export const handler = lazyHandler(() => createHandler(wiring()));
