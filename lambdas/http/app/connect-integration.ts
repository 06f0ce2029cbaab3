import { memberConnectIntegration } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/integrations (owners and admins): connected as by the operator's
 * connect-integration; both URLs (each holding its secret) are in this answer only, null in a replay.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    async ({ caller, body, prepareReplay }) => {
      const answer = (result: Awaited<ReturnType<typeof memberConnectIntegration>>) =>
        json(201, result, { Location: `${deps.urls.appUrl}/app/api/integrations/${result.integration.id}` });
      // The answer is stored with the integration: a retry after a lost answer replays it, never connects a second one.
      return answer(await memberConnectIntegration(deps, caller, body, (prepared) => prepareReplay(answer(prepared))));
    },
    { idempotent: { secretFields: ['webhook_url', 'trigger_url'] } },
  );

export const handler = lazyHandler(() => createHandler(wiring()));
