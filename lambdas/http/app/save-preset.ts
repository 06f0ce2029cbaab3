import { memberSavePreset } from '#core/use-cases/organisation/member-settings.ts';
import { settingsDeps } from './settings-deps.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/presets (owners and admins): creates the preset with this slug (201) or replaces it (200). */
export const createHandler = (deps: AppDeps) => {
  const settings = settingsDeps(deps);
  return sessionHandler(deps, async ({ caller, body }) => {
    const saved = await memberSavePreset(settings, caller, body);
    return json(saved.replaced ? 200 : 201, saved);
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));
