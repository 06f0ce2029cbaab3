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
  const answer = (saved: { replaced: boolean }) => json(saved.replaced ? 200 : 201, saved);
  // The answer is stored with the preset: a retry after a lost answer replays its 201 instead of answering 200 replaced.
  return sessionHandler(deps, async ({ caller, body, prepareReplay }) => answer(await memberSavePreset(settings, caller, body, (saved) => prepareReplay(answer(saved)))));
};

export const handler = lazyHandler(() => createHandler(wiring()));
