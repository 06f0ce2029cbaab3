import { memberIntegration } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** GET /app/api/integrations/{id} (owners and admins): one integration, never a secret, and what its forms offer. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event }) => json(200, await memberIntegration(deps, caller, pathIdOf(event, 'integration'))));

export const handler = lazyHandler(() => createHandler(wiring()));
