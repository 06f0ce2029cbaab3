import { memberConfigureIntegration } from '#core/use-cases/integrations/member-integrations.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { sealingSecretBodies } from '../../deployed/sealing-secret-bodies.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { keyedJsonFingerprint } from '../middleware/idempotency.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/integrations/{id} (owners and admins): changes as the operator's set-integration
 * makes them (mapping, status map, hardening, default preset, rate limit, name, recipe, enabled).
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    // The answer is stored with the change: a retry after a lost answer replays it instead of sealing a secret again or refusing a word it removed.
    async ({ caller, event, body, prepareReplay }) =>
      json(200, await memberConfigureIntegration(deps, caller, pathIdOf(event, 'integration'), body, (view) => prepareReplay(json(200, view)))),
    // The body holds a secret: its Idempotency-Key fingerprint is keyed, never a plain hash of it.
    { idempotent: { secretFields: [], fingerprintOf: keyedJsonFingerprint(deps.codeKey) } },
  );

export const handler = lazyHandler(() => createHandler(wiring(sealingSecretBodies())));
