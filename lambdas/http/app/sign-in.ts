import { requestSignIn } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { sesEmail } from '../../deployed/ses-email.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { publicAppHandler } from './session-handler.ts';

/** POST /app/api/sign-in: 202 whether or not the email belongs to anyone. */
export const createHandler = (deps: AppDeps) =>
  publicAppHandler(deps, async ({ body, deps: member }) => {
    await requestSignIn(member, body);
    return json(202, { accepted: true });
  });

export const handler = lazyHandler(() => createHandler(wiring(sesEmail())));
