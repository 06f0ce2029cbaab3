import { createRequest, type CreationResult } from '#core/use-cases/create-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withTicketReplies } from '../../ticket-reply-wiring.ts';
import { wiring } from '../../wiring.ts';
import { requestCreation } from '../../deployed/request-creation.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { LINK_DELIVERY_FAILED } from '../../failure-logs.ts';

/** POST /v1/requests */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.createRequest.scope,
    secretFields: ['link', 'link_without_fragment', 'challenge_code'],
    handle: async ({ caller, body, prepareReplay }) => {
      const answer = (result: CreationResult) => json(201, result, { Location: result.request.links.self });
      const result = await createRequest(
        {
          ...deps,
          onDeliveryFailure: (error, requestId) =>
            deps.logger.error(LINK_DELIVERY_FAILED, { requestId, errorName: (error as Error)?.name }),
        },
        caller,
        body,
        { prepared: (prepared) => prepareReplay(answer(prepared)) },
      );
      return answer(result);
    },
  });

export const handler = lazyHandler(() => createHandler(withTicketReplies(wiring(requestCreation()))));
