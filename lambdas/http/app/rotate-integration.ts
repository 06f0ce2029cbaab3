import { memberRotateIntegration } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/integrations/{id}/rotate (owners and admins): new secrets for both URLs, as the
 * operator's rotate-integration-secret; the old URLs answer 404 at once, the new ones are in this answer only.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event }) => json(200, await memberRotateIntegration(deps, caller, pathIdOf(event, 'integration'))));

export const handler = lazyHandler(() => createHandler(wiring()));
