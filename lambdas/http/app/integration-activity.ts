import { memberIntegrationActivity } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** GET /app/api/integrations/{id}/activity (owners and admins): its recent unusable posts, newest first, with the reasons. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event }) => json(200, await memberIntegrationActivity(deps, caller, pathIdOf(event, 'integration'))));

export const handler = lazyHandler(() => createHandler(wiring()));
