import { idsOf } from '#core/api-reads.ts';
import { listRequestsQuery } from '#core/schemas.ts';
import { listRequests } from '#core/use-cases/list-requests.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { parseQuery } from '../query-schema.ts';

/** GET /v1/requests */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.listRequests.scope,
    query: (event) => parseQuery(listRequestsQuery, event),
    reads: {},
    handle: async ({ caller, query, noteRead }) => {
      const page = await listRequests(deps, caller, query);
      await noteRead({ requests: idsOf(page.data) });
      return json(200, page);
    },
  });

export const handler = lazyHandler(() => createHandler(wiring()));
