import { inviteMember } from '#core/use-cases/organisation/member-app.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { sesEmail } from '../../deployed/ses-email.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { organisationDeps } from './organisation-deps.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/members (owners and admins): {name, email, role}; 201, the sign-in link emailed. Takes an `Idempotency-Key`. */
export const createHandler = (deps: AppDeps) =>
  // The answer is stored with the member: a retry after a lost answer replays it instead of answering 409 member_exists.
  sessionHandler(deps, async ({ caller, body, prepareReplay }) => json(201, await inviteMember(organisationDeps(deps), caller, body, (answer) => prepareReplay(json(201, answer)))), {
    idempotent: { secretFields: [] },
  });

export const handler = lazyHandler(() => createHandler(wiring(sesEmail())));
