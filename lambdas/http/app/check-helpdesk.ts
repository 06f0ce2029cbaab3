import { memberCheckHelpdesk } from '#core/use-cases/integrations/member-helpdesk.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withHelpdesks } from '../../helpdesk-wiring.ts';
import { wiring } from '../../wiring.ts';
import { kmsSealing } from '../../deployed/kms-sealing.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/integrations/{id}/helpdesk/check (owners and admins): reads one ticket through the connection and says what its status maps to. */
export const createHandler = (deps: AppDeps) => {
  const withAdapters = withHelpdesks(deps);
  return sessionHandler(deps, async ({ caller, event, body }) => json(200, await memberCheckHelpdesk(withAdapters, caller, pathIdOf(event, 'integration'), body)));
};

export const handler = lazyHandler(() => createHandler(wiring(kmsSealing())));
