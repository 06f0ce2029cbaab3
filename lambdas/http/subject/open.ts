import { openLink } from '#core/use-cases/subject/open-link.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { linkHandler } from './link-handler.ts';

/** POST /subject/open (docs/web-api.md) */
export const createHandler = (deps: AppDeps) => linkHandler(deps, (subjectDeps, holder) => openLink(subjectDeps, holder), 200, { takesNoBody: true });

export const handler = lazyHandler(() => createHandler(wiring()));
