import { revokeRequest } from '#core/use-cases/end-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { requestIdOf } from './request-path.ts';

/** POST /v1/requests/{id}/revoke */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.revokeRequest.scope,
    takesNoBody: true,
    handle: async ({ caller, event, prepareReplay }) =>
      json(200, await revokeRequest(deps, caller, requestIdOf(event), (view) => prepareReplay(json(200, view)))),
  });

export const handler = lazyHandler(() => createHandler(wiring(expirySchedules())));
