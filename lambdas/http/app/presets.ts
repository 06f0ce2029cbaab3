import { memberPresets } from '#core/use-cases/organisation/member-settings.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/presets (owners and admins): the presets, the default presets and what the preset form offers. */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, await memberPresets(deps, caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
