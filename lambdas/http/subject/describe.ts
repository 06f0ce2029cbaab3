import { describeForSubject } from '#core/use-cases/subject/describe.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { linkHandler } from './link-handler.ts';

/** GET /subject/request (docs/web-api.md) */
export const createHandler = (deps: AppDeps) => linkHandler(deps, (subjectDeps, holder) => describeForSubject(subjectDeps, holder), 200);

export const handler = lazyHandler(() => createHandler(wiring()));
