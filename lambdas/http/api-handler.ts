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

export interface EndpointCall<Prefetched = undefined> {
  caller: Caller;
  body: unknown;
  event: ApiEvent;
  /** What `prefetch` read, started in parallel with authentication. */
  prefetched: Prefetched;
  /**
   * A creating endpoint hands over its answer before its change commits (the use case's
   * `prepared`): with an Idempotency-Key it is stored in the change's own transaction, so a
   * change whose answer was lost replays instead of being made again. Without a key, nothing.
   */
  prepareReplay(response: ApiResult): void;
}

export interface Endpoint<Prefetched = undefined> {
  scope: Scope | 'any';
  /**
   * A read the endpoint will need whoever calls, started as the call arrives so it runs beside
   * the authentication reads instead of after them. Its result is used only once every check has
   * passed; a refused call never sees it.
   */
  prefetch?(event: ApiEvent): Promise<Prefetched>;
  /** Fields of the answer that are shown once and null in every idempotent replay. */
  secretFields?: readonly string[];
  handle(call: EndpointCall<Prefetched>): Promise<ApiResult>;
}

type StatefulContext = Context & { apiState?: ApiState; prefetched?: Promise<unknown> };

/**
 * The middleware stack every API endpoint runs: errors and headers, authentication, rate limit,
 * plan/allowlist/scope, JSON body, idempotency (POST only), then the endpoint, which parses,
 * calls one use case and serialises.
 */
export const apiHandler = <Prefetched = undefined>(deps: AppDeps, endpoint: Endpoint<Prefetched>): ApiLambda => {
  const chain = middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(respond(deps.logger))
    .use({
      before: (request) => {
        // The endpoint reads the state the middlewares built through its Lambda context.
        const context = request.context as StatefulContext;
        context.apiState = request.internal;
        if (endpoint.prefetch) {
          context.prefetched = endpoint.prefetch(request.event);
          context.prefetched.catch(() => undefined); // a refused call never awaits it
        }
      },
    })
    .use(authenticate(deps))
    .use(rateLimit())
    .use(authorise(endpoint.scope, deps.audit))
    .use(jsonBody())
    .use(idempotency(deps.idempotency, endpoint.secretFields ?? [], undefined, deps.commits))
    .handler(async (event, context) => {
      const { apiState, prefetched } = context as StatefulContext;
      return endpoint.handle({
        caller: apiState!.caller!,
        body: apiState!.body,
        event,
        prefetched: (await prefetched) as Prefetched,
        prepareReplay: (response) => apiState!.prepareReplay?.(response),
      });
    });
  // The reads each invocation starts together (key, organisation, prefetch) go as one batch, and
  // its prepared replay waits for its change's transaction.
  const reads = deps.readBatching;
  const commits = deps.commits;
  return ((event: ApiEvent, context: Context) => {
    const run = () => chain(event, context);
    const withCommits = commits ? () => commits.scope(run) : run;
    return reads ? reads.scope(withCommits) : withCommits();
  }) as ApiLambda;
};

export { lazyHandler } from './lazy-handler.ts';
