import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Caller } from '#core/caller.ts';
import type { Scope } from '#core/model.ts';
import type { AppDeps } from '../app-deps.ts';
import { authenticate } from './middleware/authenticate.ts';
import { authorise } from './middleware/authorise.ts';
import { idempotency } from './middleware/idempotency.ts';
import { jsonBody } from './middleware/json-body.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { respond } from './middleware/respond.ts';
import type { ApiEvent, ApiLambda, ApiResult, ApiState } from './types.ts';

export interface EndpointCall {
  caller: Caller;
  body: unknown;
  event: ApiEvent;
}

export interface Endpoint {
  scope: Scope | 'any';
  /** Fields of the answer that are shown once and null in every idempotent replay. */
  secretFields?: readonly string[];
  handle(call: EndpointCall): Promise<ApiResult>;
}

type StatefulContext = Context & { apiState?: ApiState };

/**
 * The middleware stack every API endpoint runs: errors and headers, authentication, rate limit,
 * plan/allowlist/scope, JSON body, idempotency (POST only), then the endpoint, which parses,
 * calls one use case and serialises.
 */
export const apiHandler = (deps: AppDeps, endpoint: Endpoint): ApiLambda => {
  const chain = middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(respond(deps.logger))
    .use({
      before: (request) => {
        // The endpoint reads the state the middlewares built through its Lambda context.
        (request.context as StatefulContext).apiState = request.internal;
      },
    })
    .use(authenticate(deps))
    .use(rateLimit())
    .use(authorise(endpoint.scope, deps.audit))
    .use(jsonBody())
    .use(idempotency(deps.idempotency, endpoint.secretFields ?? []))
    .handler(async (event, context) => {
      const state = (context as StatefulContext).apiState!;
      return endpoint.handle({ caller: state.caller!, body: state.body, event });
    });
  return chain;
};

/** Builds the wired handler on first use, so importing a handler module has no side effects. */
export const lazyHandler = (build: () => ApiLambda) => {
  let built: ApiLambda | undefined;
  return (event: ApiEvent, context: Context) => (built ??= build())(event, context);
};
