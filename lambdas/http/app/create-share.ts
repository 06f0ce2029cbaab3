import { createShare, type CreatedShare } from '#core/use-cases/shares/create-share.ts';
import { wiring } from '../../wiring.ts';
import { withShareStore, type WithShares } from '../../store-wiring.ts';
import { expirySchedules } from '../../deployed/eventbridge-schedules.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/shares: stores the ciphertext the member's browser sealed; the link is shown once. */
export const createHandler = (deps: WithShares) =>
  sessionHandler(
    deps,
    async ({ caller, body, prepareReplay }) => {
      const answer = (result: CreatedShare) => json(201, result, { Location: `${deps.urls.appUrl}/app/api/shares/${result.share.id}` });
      return answer(await createShare(deps, caller, body, (prepared) => prepareReplay(answer(prepared))));
    },
    { idempotent: { secretFields: ['link'] } },
  );

export const handler = lazyHandler(() => createHandler(withShareStore(wiring(expirySchedules()))));
