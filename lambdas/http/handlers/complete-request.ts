import { completeRequest } from '#core/use-cases/end-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { requestIdOf } from './request-path.ts';

/** POST /v1/requests/{id}/complete */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.completeRequest.scope,
    takesNoBody: true,
    handle: async ({ caller, event, prepareReplay }) =>
      json(200, await completeRequest(deps, caller, requestIdOf(event), (view) => prepareReplay(json(200, view)))),
  });

export const handler = lazyHandler(() => createHandler(wiring(expirySchedules())));
