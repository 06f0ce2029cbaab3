import { memberChangePolicy } from '#core/use-cases/organisation/member-settings.ts';
import { settingsDeps } from './settings-deps.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/organisation/policy (owners and admins): the fields sent change; the answer says which. */
export const createHandler = (deps: AppDeps) => {
  const settings = settingsDeps(deps);
  // The answer is stored with the change: a retry after a lost answer replays what changed instead of answering that nothing did.
  return sessionHandler(deps, async ({ caller, body, prepareReplay }) => json(200, await memberChangePolicy(settings, caller, body, (answer) => prepareReplay(json(200, answer)))));
};

export const handler = lazyHandler(() => createHandler(wiring()));
