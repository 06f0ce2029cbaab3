import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ReadRecords } from '#core/api-reads.ts';
import type { Caller } from '#core/caller.ts';
import type { Scope } from '#core/model.ts';
import type { AppDeps } from '../app-deps.ts';
import { withApiKeyStore, withApiReadLog } from '../store-wiring.ts';
import { authenticate } from './middleware/authenticate.ts';
import { authorise } from './middleware/authorise.ts';
import { idempotency, withReplayScope } from './middleware/idempotency.ts';
import { jsonBody } from './middleware/json-body.ts';
import { queryParameters } from './middleware/query.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { readTrail, type ReadTrace } from './middleware/read-trail.ts';
import { respond } from './middleware/respond.ts';
import type { ApiEvent, ApiLambda, ApiResult, ApiState } from './types.ts';
import { refuseAnyBody } from './no-body.ts';

export interface EndpointCall<Prefetched = undefined, Query = undefined> {
  caller: Caller;
  body: unknown;
  /** The query as the endpoint's `query` parsed it (undefined when it defines no parameters). */
  query: Query;
  event: ApiEvent;
  /** What `prefetch` read, started in parallel with authentication. */
  prefetched: Prefetched;
  /**
   * A creating endpoint hands over its answer before its change commits (the use case's
   * `prepared`): with an Idempotency-Key it is stored in the change's own transaction, so a
   * change whose answer was lost replays instead of being made again. Without a key, nothing.
   */
  prepareReplay(response: ApiResult): void;
  /**
   * A read endpoint names the records it read: its read record is handed to the read log, which
   * stores it off the read path; the answer leaves only once it is handed over
   * (middleware/read-trail.ts). Elsewhere, nothing.
   */
  noteRead(records: ReadRecords): Promise<void>;
}

export interface Endpoint<Prefetched = undefined, Query = undefined> {
  scope: Scope | 'any';
  /**
   * Parses the query parameters the endpoint defines (query-schema.ts); without it, any query
   * parameter answers 422 (query-rule.ts).
   */
  query?(event: ApiEvent): Query;
  /**
   * A read the endpoint will need whoever calls, started as the call arrives so it runs beside
   * the authentication reads instead of after them. Its result is used only once every check has
   * passed; a refused call never sees it.
   */
  prefetch?(event: ApiEvent): Promise<Prefetched>;
  /** Fields of the answer that are shown once and null in every idempotent replay. */
  secretFields?: readonly string[];
  /** A POST that takes no body (no-body.ts). */
  takesNoBody?: boolean;
  /** A read endpoint: each call by an accepted key leaves a read record, served or refused (middleware/read-trail.ts). */
  reads?: ReadTrace;
  handle(call: EndpointCall<Prefetched, Query>): Promise<ApiResult>;
}

type StatefulContext = Context & { apiState?: ApiState; prefetched?: Promise<unknown> };

/**
 * The middleware stack every API endpoint runs: errors and headers, authentication, rate limit,
 * plan/allowlist/scope, JSON body, query, idempotency (POST only), a read's trace (read endpoints),
 * then the endpoint, which parses, calls one use case and serialises.
 */
export const apiHandler = <Prefetched = undefined, Query = undefined>(deps: AppDeps, endpoint: Endpoint<Prefetched, Query>): ApiLambda => {
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
    .use(authenticate(withApiKeyStore(deps)))
    .use(rateLimit())
    .use(authorise(endpoint.scope, deps.audit))
    .use(jsonBody())
    .use(queryParameters(endpoint.query))
    .use(idempotency(deps.idempotency, { secretFields: endpoint.secretFields, commits: deps.commits }))
    .use(readTrail(withApiReadLog(deps), endpoint.reads))
    .handler(async (event, context) => {
      const { apiState, prefetched } = context as StatefulContext;
      if (endpoint.takesNoBody) refuseAnyBody(apiState!.body);
      return endpoint.handle({
        caller: apiState!.caller!,
        body: apiState!.body,
        query: apiState!.query as Query,
        event,
        prefetched: (await prefetched) as Prefetched,
        prepareReplay: (response) => apiState!.prepareReplay?.(response),
        noteRead: async (records) => apiState!.noteRead?.(records),
      });
    });
  // The reads each invocation starts together (key, organisation, prefetch) go as one batch, and
  // its prepared replay waits for its change's transaction.
  const reads = deps.readBatching;
  const run = withReplayScope(deps.commits, (event: ApiEvent, context: Context) => chain(event, context));
  return ((event: ApiEvent, context: Context) => (reads ? reads.scope(() => run(event, context)) : run(event, context))) as ApiLambda;
};

export { lazyHandler } from './lazy-handler.ts';
