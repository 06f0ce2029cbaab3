import { createRequest } from '#core/use-cases/create-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { ROUTES } from '../routes.ts';

/** POST /v1/requests */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: ROUTES.createRequest.scope,
    secretFields: ['link', 'link_without_fragment', 'challenge_code'],
    handle: async ({ caller, body }) => {
      const result = await createRequest(
        {
          ...deps,
          onDeliveryFailure: (error, requestId) =>
            deps.logger.error('link delivery failed', { requestId, errorName: (error as Error)?.name }),
        },
        caller,
        body,
      );
      return json(201, result, { Location: result.request.links.self, 'Cache-Control': 'no-store' });
    },
  });

export const handler = lazyHandler(() => createHandler(wiring()));
