import type { CreationResult } from '#core/use-cases/create-request.ts';
import { memberCreateRequest } from '#core/use-cases/member-new-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withTicketReplies } from '../../ticket-reply-wiring.ts';
import { wiring } from '../../wiring.ts';
import { requestCreation } from '../../deployed/request-creation.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';
import { LINK_DELIVERY_FAILED } from '../../failure-logs.ts';

/**
 * POST /app/api/requests: a request made in the member's browser, with the recipient commitment
 * that browser computed; the link and code are shown once.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    async ({ caller, body, prepareReplay }) => {
      const answer = (result: CreationResult) => json(201, result, { Location: `${deps.urls.appUrl}/app/api/requests/${result.request.id}` });
      const result = await memberCreateRequest(
        { ...deps, onDeliveryFailure: (error, requestId) => deps.logger.error(LINK_DELIVERY_FAILED, { requestId, errorName: (error as Error)?.name }) },
        caller,
        body,
        { prepared: (prepared) => prepareReplay(answer(prepared)) },
      );
      return answer(result);
    },
    { idempotent: { secretFields: ['link', 'link_without_fragment', 'challenge_code'] } },
  );

export const handler = lazyHandler(() => createHandler(withTicketReplies(wiring(requestCreation()))));
