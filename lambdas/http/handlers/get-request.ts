import { toRequestView } from '#core/request-view.ts';
import { visibleOrNotFound } from '#core/use-cases/read-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { namedById } from '../middleware/read-trail.ts';
import { requestIdOf } from './request-path.ts';

/** GET /v1/requests/{id} */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.getRequest.scope,
    // Read the request beside the key and organisation reads: one round trip fewer per call.
    prefetch: async (event) => deps.requests.get(requestIdOf(event)),
    reads: { named: namedById('requests') },
    handle: async ({ caller, prefetched, noteRead }) => {
      const request = visibleOrNotFound(prefetched, caller);
      await noteRead({ requests: [request.id] });
      return json(200, toRequestView(request, deps.urls));
    },
  });

export const handler = lazyHandler(() => createHandler(wiring()));
