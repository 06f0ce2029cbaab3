import { registerIdentityKey } from '#core/use-cases/member-keys.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/identity-key */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, body, deps: member }) => json(200, await registerIdentityKey(member, caller, body)));

export const handler = lazyHandler(() => createHandler(wiring()));
