import { submitCredential } from '#core/use-cases/subject/submit.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { linkHandler } from './link-handler.ts';

/** POST /subject/submit (docs/web-api.md) */
export const createHandler = (deps: AppDeps) => linkHandler(deps, (subjectDeps, holder, body) => submitCredential(subjectDeps, holder, body), 200);

export const handler = lazyHandler(() => createHandler(wiring(expirySchedules())));
