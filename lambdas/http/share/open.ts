import { openShare } from '#core/use-cases/shares/share-lifecycle.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore, type WithShares } from '../../store-wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { recipientHandler } from './recipient-handler.ts';

/** POST /share/open: the ciphertext, counting one view; the last allowed view destroys it. */
export const createHandler = (deps: WithShares) => recipientHandler(deps, (token) => openShare(deps, token));

export const handler = lazyHandler(() => createHandler(withShareStore(wiring(expirySchedules()))));
