import { listRequestsQuery } from '#core/schemas.ts';
import { listRequests } from '#core/use-cases/list-requests.ts';
import { parseOrThrow } from '#core/validation.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** GET /v1/requests */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.listRequests.scope,
    handle: async ({ caller, event }) => {
      const query = parseOrThrow(listRequestsQuery, event.queryStringParameters ?? {});
      return json(200, await listRequests(deps, caller, query));
    },
  });

export const handler = lazyHandler(() => createHandler(wiring()));
