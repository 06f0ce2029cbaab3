import { startSession } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { publicAppHandler, sessionCookie } from './session-handler.ts';

/** POST /app/api/session: trades the emailed sign-in token for the session cookie (or, with `preview`, says whom it signs in). */
export const createHandler = (deps: AppDeps) =>
  publicAppHandler(deps, async ({ body, deps: member }) => {
    const { sessionToken, answer } = await startSession(member, body);
    return sessionToken === null ? json(200, answer) : { ...json(200, answer), cookies: [sessionCookie(sessionToken)] };
  });

export const handler = lazyHandler(() => createHandler(wiring()));
