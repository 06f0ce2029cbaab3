import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { AppDeps } from '../../app-deps.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { refuseAnyBody } from '../no-body.ts';
import { refuseQueryParameters } from '../query-rule.ts';
import { respond } from '../middleware/respond.ts';
import { json } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiResult, ApiState } from '../types.ts';

/**
 * The share recipient's endpoints: errors as everywhere, the share's link token in `X-Share-Token`
 * (the page reads it from its own path; the private key in the fragment never leaves the browser).
 * They take no query and no body: malformed JSON answers 400 and any member or parameter 422, as
 * everywhere, before a view is counted.
 */
export const recipientHandler = (deps: AppDeps, run: (token: string | undefined) => Promise<unknown>): ApiLambda =>
  middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(respond(deps.logger))
    .use(jsonBody())
    .use({
      before: (request) => {
        refuseQueryParameters(request.event);
        refuseAnyBody(request.internal.body);
      },
    })
    .handler(async (event) => json(200, await run(event.headers?.['x-share-token']), { 'Referrer-Policy': 'no-referrer' }));
