import { listMemberIntegrations } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/integrations (owners and admins): the organisation's ticketing integrations and what the connect form offers. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller }) => json(200, await listMemberIntegrations(deps, caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
