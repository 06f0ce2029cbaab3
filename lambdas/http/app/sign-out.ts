import { endSession } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { noContent } from '../responses.ts';
import { clearedSessionCookie, sessionHandler } from './session-handler.ts';

/** POST /app/api/sign-out: the session is deleted and the cookie cleared. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller, deps: member }) => {
    await endSession(member, caller);
    return { ...noContent(), cookies: [clearedSessionCookie()] };
  });

export const handler = lazyHandler(() => createHandler(wiring()));
