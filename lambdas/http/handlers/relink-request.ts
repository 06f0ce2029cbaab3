import { relinkThroughApi, type RelinkResult } from '#core/use-cases/relink-request.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { relinking } from '../../deployed/relinking.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';
import { requestIdOf } from './request-path.ts';

/** Shown once: null on an idempotent replay, as a new request's. */
export const RELINK_SECRET_FIELDS = ['link', 'link_without_fragment', 'challenge_code'];

/** POST /v1/requests/{id}/relink (an extension of SPEC.md's API, in docs/openapi.json). */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.relinkRequest.scope,
    takesNoBody: true,
    secretFields: RELINK_SECRET_FIELDS,
    handle: async ({ caller, event, prepareReplay }) => {
      const answer = (result: RelinkResult) => json(200, result);
      return answer(await relinkThroughApi(deps, caller, requestIdOf(event), (prepared) => prepareReplay(answer(prepared))));
    },
  });

export const handler = lazyHandler(() => createHandler(wiring(relinking())));
