import { requestSignIn } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { sesEmail } from '../../deployed/ses-email.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { publicAppHandler } from './session-handler.ts';

/**
 * How long a sign-in request takes at least. For a member's address it saves a token and sends an
 * email, for any other it does neither, and a caller who timed the two could tell which addresses
 * have accounts; so every answer waits until this long after the request arrived. An email that
 * takes longer than this to hand over (a slow SES) is the one case it does not cover.
 */
export const SIGN_IN_ANSWER_MS = 1_000;

/** POST /app/api/sign-in: 202 whether or not the email belongs to anyone, after the same time either way. */
export const createHandler = (deps: AppDeps) =>
  publicAppHandler(deps, async ({ body, deps: member }) => {
    // Real time, not the service clock: what a caller can measure.
    const answerAt = performance.now() + (deps.signInAnswerMs ?? SIGN_IN_ANSWER_MS);
    await requestSignIn(member, body);
    const wait = answerAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return json(202, { accepted: true });
  });

export const handler = lazyHandler(() => createHandler(wiring(sesEmail())));
