import { openShare } from '#core/use-cases/shares/share-lifecycle.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { recipientHandler } from './recipient-handler.ts';

/** POST /share/open: the ciphertext, counting one view; the last allowed view destroys it. */
export const createHandler = (deps: AppDeps) => recipientHandler(deps, (token) => openShare(deps, token));

export const handler = lazyHandler(() => createHandler(wiring()));
