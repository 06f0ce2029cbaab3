import { memberSetDefaultPreset } from '#core/use-cases/organisation/member-settings.ts';
import { settingsDeps } from './settings-deps.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/default-preset (owners and admins): the organisation's or a client's default preset; null clears it. */
export const createHandler = (deps: AppDeps) => {
  const settings = settingsDeps(deps);
  return sessionHandler(deps, async ({ caller, body }) => json(200, await memberSetDefaultPreset(settings, caller, body)));
};

export const handler = lazyHandler(() => createHandler(wiring()));
