import { reportRequest } from '#core/use-cases/subject/report.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { linkHandler } from './link-handler.ts';

/** POST /subject/report (docs/web-api.md) */
export const createHandler = (deps: AppDeps) => linkHandler(deps, (subjectDeps, holder, body) => reportRequest(subjectDeps, holder, body), 202);

export const handler = lazyHandler(() => createHandler(wiring()));
