import { memberConnectHelpdesk } from '#core/use-cases/integrations/member-helpdesk.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { sealingSecretBodies } from '../../deployed/sealing-secret-bodies.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { keyedJsonFingerprint } from '../middleware/idempotency.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/integrations/{id}/helpdesk (owners and admins): connects or disconnects the integration's helpdesk API; the credentials are sealed and never shown again. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    // The answer is stored with the connection: a retry after a lost answer replays it instead of connecting again.
    async ({ caller, event, body, prepareReplay }) =>
      json(200, await memberConnectHelpdesk(deps, caller, pathIdOf(event, 'integration'), body, (view) => prepareReplay(json(200, view)))),
    // The body holds a secret: its Idempotency-Key fingerprint is keyed, never a plain hash of it.
    { idempotent: { secretFields: [], fingerprintOf: keyedJsonFingerprint(deps.codeKey) } },
  );

export const handler = lazyHandler(() => createHandler(wiring(sealingSecretBodies())));
