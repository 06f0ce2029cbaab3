import { requestOptions } from '#core/use-cases/member-new-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/request-options: the clients, teams, templates, presets, members and policy choices of the new-request form. */
export const createHandler = (deps: AppDeps) => sessionHandler(deps, async ({ caller }) => json(200, await requestOptions(deps, caller)));

export const handler = lazyHandler(() => createHandler(wiring()));
