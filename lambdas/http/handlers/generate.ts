import { generateCredential } from '#core/use-cases/generate-credential.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { apiHandler, lazyHandler } from '../api-handler.ts';
import { json } from '../responses.ts';
import { API_ROUTES } from '../api-routes.ts';

/** POST /v1/generate */
export const createHandler = (deps: AppDeps) =>
  apiHandler(deps, {
    scope: API_ROUTES.generate.scope,
    secretFields: ['value'],
    handle: async ({ body }) => json(200, generateCredential(body)),
  });

export const handler = lazyHandler(() => createHandler(wiring()));
