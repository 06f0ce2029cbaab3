import { memberRotateIntegration } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/integrations/{id}/rotate (owners and admins): new secrets for both URLs, as the
 * operator's rotate-integration-secret; the old URLs answer 404 at once, the new ones are in this
 * answer only (null in an idempotent replay, whose answer is stored with the rotation itself).
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    async ({ caller, event, prepareReplay }) =>
      json(200, await memberRotateIntegration(deps, caller, pathIdOf(event, 'integration'), (answer) => prepareReplay(json(200, answer)))),
    { idempotent: { secretFields: ['webhook_url', 'trigger_url'] }, takesNoBody: true },
  );

export const handler = lazyHandler(() => createHandler(wiring()));
