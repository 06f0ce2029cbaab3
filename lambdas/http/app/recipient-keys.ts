import { recipientKeys } from '#core/use-cases/member-new-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/recipient-keys?recipients=<emails>&teams=<ids>: the public keys a new request's commitment is computed from. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, event }) => json(200, await recipientKeys(deps, caller, event.queryStringParameters ?? {})), { readsQuery: true });

export const handler = lazyHandler(() => createHandler(wiring()));
