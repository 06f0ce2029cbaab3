import { describeShare } from '#core/use-cases/shares/share-lifecycle.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore, type WithShares } from '../../store-wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { recipientHandler } from './recipient-handler.ts';

/** GET /share/describe: what the recipient's page shows before opening; opens nothing. */
export const createHandler = (deps: WithShares) => recipientHandler(deps, (token) => describeShare(deps, token));

export const handler = lazyHandler(() => createHandler(withShareStore(wiring())));
