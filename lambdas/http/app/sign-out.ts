import { endSession } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { noContent } from '../responses.ts';
import { clearedSessionCookie, sessionHandler } from './session-handler.ts';

/**
 * POST /app/api/sign-out: the session is deleted and the cookie cleared. It takes no
 * Idempotency-Key: it acts on the session that sends it, not on the member, so a replay to another
 * session of the member would answer 204 and end nothing; a retry of a lost answer already ends as
 * a replay would (401, the cookie cleared), as the session is gone.
 */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(
    deps,
    async ({ caller, deps: member }) => {
      await endSession(member, caller);
      return { ...noContent(), cookies: [clearedSessionCookie()] };
    },
    { idempotent: false, takesNoBody: true },
  );

export const handler = lazyHandler(() => createHandler(wiring()));
