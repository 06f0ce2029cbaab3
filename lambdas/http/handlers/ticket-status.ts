import { markTicketStatus } from '#core/use-cases/tickets/mark-ticket-status.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withTicketChecks } from '../../ticket-check-wiring.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore } from '../../store-wiring.ts';
import { expiryAndPurgeSchedules } from '../../deployed/eventbridge-schedules.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { ticketDeps } from '../ticket-deps.ts';

/** POST /v1/tickets/{ref}/status */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.markTicketStatus.scope,
    handle: async ({ caller, event, body }) =>
      json(202, await markTicketStatus(ticketDeps(deps), caller, event.pathParameters?.ref ?? '', body)),
  });

export const handler = lazyHandler(() => createHandler(withShareStore(withTicketChecks(wiring(expiryAndPurgeSchedules())))));
