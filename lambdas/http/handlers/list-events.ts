import { listEvents, listEventsQuery } from '#core/use-cases/list-events.ts';
import { parseOrThrow } from '#core/validation.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withEventFeed } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** GET /v1/events */
export const createHandler = (appDeps: AppDeps) => {
  // The event feed is added by the functions that read it (store-wiring.ts).
  const deps = withEventFeed(appDeps);
  return apiHandler(deps, {
    scope: API_ROUTES.listEvents.scope,
    handle: async ({ caller, event }) => {
      const query = parseOrThrow(listEventsQuery, event.queryStringParameters ?? {});
      return json(200, await listEvents(deps, caller, query));
    },
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));
