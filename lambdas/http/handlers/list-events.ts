import { eventsRead } from '#core/api-reads.ts';
import { listEvents, listEventsQuery } from '#core/use-cases/list-events.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withEventFeed } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { parseQuery } from '../query-schema.ts';

/** GET /v1/events */
export const createHandler = (appDeps: AppDeps) => {
  // The event feed is added by the functions that read it (store-wiring.ts).
  const deps = withEventFeed(appDeps);
  return apiHandler(deps, {
    scope: API_ROUTES.listEvents.scope,
    query: (event) => parseQuery(listEventsQuery, event),
    reads: {},
    handle: async ({ caller, query, noteRead }) => {
      const page = await listEvents(deps, caller, query);
      await noteRead(eventsRead(page.data));
      return json(200, page);
    },
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));
