import { memberCreateTemplate } from '#core/use-cases/organisation/member-settings.ts';
import { settingsDeps } from './settings-deps.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/templates (owners and admins): 201 the new template; takes an Idempotency-Key. */
export const createHandler = (deps: AppDeps) => {
  const settings = settingsDeps(deps);
  // The answer is stored with the template: a retry after a lost answer replays it, never creates a second one.
  return sessionHandler(deps, async ({ caller, body, prepareReplay }) => json(201, await memberCreateTemplate(settings, caller, body, (answer) => prepareReplay(json(201, answer)))), {
    idempotent: { secretFields: [] },
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));
