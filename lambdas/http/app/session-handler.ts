import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ApiError, forbidden, notFound } from '#core/errors.ts';
import { isId } from '#core/ids.ts';
import { notSignedIn, roleChangedMeanwhile, SESSION_SECONDS, type MemberCaller } from '#core/member-access.ts';
import { csrfMatches, resolveSession } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { idempotency, withReplayScope, type IdempotencyOptions } from '../middleware/idempotency.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { refuseAnyBody } from '../no-body.ts';
import { refuseMisreadQuery, refuseQueryParameters } from '../query-rule.ts';
import { respond } from '../middleware/respond.ts';
import { withHeaders } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiMiddleware, ApiResult, ApiState } from '../types.ts';
import { memberDeps, type MemberAppDeps } from './member-deps.ts';
import { memberStanding } from '#store/caller-standing.ts';

/**
 * The middleware stack of the member endpoints (docs/web-api.md, Member endpoints), as
 * api-handler.ts is for API keys: errors and `Cache-Control: no-store` on every answer; for a POST,
 * no cross-site caller (Origin, Sec-Fetch-Site); the session cookie; for a POST, the CSRF header;
 * the JSON body; for a POST, its Idempotency-Key; then the endpoint, which calls one use case and
 * serialises.
 */
export const SESSION_COOKIE = 'handoff_session';
const COOKIE_ATTRIBUTES = 'HttpOnly; Secure; SameSite=Strict; Path=/app';

export const sessionCookie = (token: string) => `${SESSION_COOKIE}=${token}; ${COOKIE_ATTRIBUTES}; Max-Age=${SESSION_SECONDS}`;
export const clearedSessionCookie = () => `${SESSION_COOKIE}=; ${COOKIE_ATTRIBUTES}; Max-Age=0`;

/**
 * The session token from payload 2.0's `cookies` (each `name=value`), or null. Two different
 * session cookies (one planted by a sibling site on a narrower path, say) name no session: which
 * one the member meant cannot be told, so the call is unauthenticated rather than signed in as
 * whichever comes first.
 */
export const sessionTokenOf = (event: ApiEvent): string | null => {
  const tokens = new Set<string>();
  for (const cookie of event.cookies ?? []) {
    const split = cookie.indexOf('=');
    if (split > 0 && cookie.slice(0, split).trim() === SESSION_COOKIE) {
      const value = cookie.slice(split + 1).trim();
      if (value) tokens.add(value);
    }
  }
  return tokens.size === 1 ? [...tokens][0] : null;
};

const isPost = (event: ApiEvent) => event.requestContext.http.method === 'POST';

/**
 * Outermost: no member answer is cached; behind a session, a 401 also clears the cookie so the
 * page starts over at sign-in.
 */
const memberAnswers = ({ clearCookieOn401 }: { clearCookieOn401: boolean }): ApiMiddleware => {
  const finish = (response: ApiResult | null, error?: unknown) => {
    if (!response) return response;
    const headed = withHeaders(response, { 'Cache-Control': 'no-store' });
    if (clearCookieOn401 && error instanceof ApiError && error.status === 401) return { ...headed, cookies: [clearedSessionCookie()] };
    return headed;
  };
  return {
    after: (request) => {
      request.response = finish(request.response);
    },
    onError: (request) => {
      request.response = finish(request.response, request.error);
    },
  };
};

/**
 * A POST must come from the application's own pages: an `Origin` other than the app's, or a
 * browser's `Sec-Fetch-Site` naming another site, answers 403. (The SameSite=Strict cookie and the
 * CSRF header already stop cross-site calls; this refuses them before anything is read.)
 */
const sameOrigin = (deps: AppDeps): ApiMiddleware => ({
  before: (request) => {
    if (!isPost(request.event)) return;
    const headers = request.event.headers ?? {};
    const origin = headers.origin;
    // Read at call time: the local runtime learns its own address only once it listens.
    if (origin !== undefined && origin !== new URL(deps.urls.appUrl).origin) {
      throw forbidden('Calls to this endpoint must come from the application itself.');
    }
    const site = headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      throw forbidden('Calls to this endpoint must come from the application itself.');
    }
  },
});

const authenticateSession = (deps: MemberAppDeps): ApiMiddleware => ({
  before: async (request) => {
    const caller = await resolveSession(deps, sessionTokenOf(request.event));
    request.internal.member = caller;
    // Each change the call makes commits only while the member may still act: a disable that
    // lands while the call is under way stops it as it stops their next call, and a change of
    // their role stops it too (an owner's or admin's right is judged as the change commits).
    const acting = { orgId: caller.org.id, memberId: caller.member.id, sessionCreatedAt: caller.session.createdAt, role: caller.member.role };
    deps.commits?.callerMustStand(memberStanding(deps.tableName, acting, notSignedIn, roleChangedMeanwhile));
  },
});

const requireCsrf = (): ApiMiddleware => ({
  before: (request) => {
    if (!isPost(request.event)) return;
    const caller = request.internal.member as MemberCaller;
    if (!csrfMatches(caller, request.event.headers?.['x-csrf-token'])) {
      throw forbidden('The X-CSRF-Token header is missing or wrong. Reload the page and try again.');
    }
  },
});

/**
 * `/v1`'s query rule (query-rule.ts): an endpoint that reads no parameters refuses any; one that
 * reads them refuses one given twice or not UTF-8, and parses the rest itself. Before the
 * Idempotency-Key is claimed, as in api-handler.ts: the key's fingerprint covers the body, not
 * the query, so a refused query kept as the key's answer would be replayed to the corrected call.
 */
const queryRule = (readsQuery: boolean): ApiMiddleware => ({
  before: (request) => {
    if (readsQuery) refuseMisreadQuery(request.event);
    else refuseQueryParameters(request.event);
  },
});

type MemberContext = Context & { member?: MemberCaller; body?: unknown; prepareReplay?: (response: ApiResult) => void };

const handOver: ApiMiddleware = {
  before: (request) => {
    const context = request.context as MemberContext;
    context.member = request.internal.member as MemberCaller | undefined;
    context.body = request.internal.body;
    context.prepareReplay = (response) => request.internal.prepareReplay?.(response);
  },
};

export interface SessionCall {
  caller: MemberCaller;
  body: unknown;
  event: ApiEvent;
  deps: MemberAppDeps;
  /**
   * Hands over the answer before the change commits (a use case's `prepared`): with an
   * Idempotency-Key it is stored in the change's own transaction, so a change whose answer was
   * lost replays instead of being made again. Without a key, nothing.
   */
  prepareReplay(response: ApiResult): void;
}

export interface SessionEndpointOptions {
  /**
   * Every POST takes an `Idempotency-Key` as the API's do (SPEC.md's idempotency rules), with no
   * option needed. `secretFields` names the answer's fields shown once: null in every replay, so
   * never stored. `fingerprintOf` replaces the body's plain SHA-256 fingerprint: a body that holds a
   * secret the service seals is fingerprinted with keyedJsonFingerprint. `false` only where a
   * replay can mean nothing (sign-out ends the very session a replay would need).
   */
  idempotent?: { secretFields: readonly string[]; fingerprintOf?: IdempotencyOptions['fingerprintOf'] } | false;
  /** A POST that takes no body (no-body.ts), as the API's revoke, complete and relink. */
  takesNoBody?: boolean;
  /**
   * The endpoint reads query parameters (and parses them with a strict schema of its own). Any
   * other endpoint refuses every parameter, 422 by name, as `/v1` does (query-rule.ts), so a
   * misspelt filter never passes silently.
   */
  readsQuery?: boolean;
}

/** A member's Idempotency-Keys are theirs alone: no other member's, organisation's or API key's call replays them. */
const memberScope = (state: ApiState) => `member:${(state.member as MemberCaller).member.id}`;

/** An endpoint for a signed-in member. */
export const sessionHandler = (
  deps: AppDeps,
  handle: (call: SessionCall) => Promise<ApiResult>,
  options: SessionEndpointOptions = {},
): ApiLambda => {
  const member = memberDeps(deps);
  const replays =
    options.idempotent === false
      ? []
      : [
          idempotency(deps.idempotency, {
            secretFields: options.idempotent?.secretFields,
            ownerOf: memberScope,
            commits: deps.commits,
            fingerprintOf: options.idempotent?.fingerprintOf,
          }),
        ];
  const chain = middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(memberAnswers({ clearCookieOn401: true }))
    .use(respond(deps.logger))
    .use(sameOrigin(deps))
    .use(authenticateSession(member))
    .use(requireCsrf())
    .use(jsonBody())
    .use(queryRule(options.readsQuery === true))
    .use(replays)
    .use(handOver)
    .handler(async (event, context) => {
      const { member: caller, body, prepareReplay } = context as MemberContext;
      if (options.takesNoBody) refuseAnyBody(body);
      return handle({ caller: caller!, body, event, deps: member, prepareReplay: prepareReplay! });
    });
  return withReplayScope(deps.commits, chain);
};

/**
 * An endpoint anyone may call (sign-in, session): the same stack without the session, and without
 * Idempotency-Keys (the header is ignored). Before sign-in there is no caller whose records a key
 * could be kept among. A session's answer is its cookie, a secret no replay may hand out again,
 * and its sign-in token works once, so a retry can never make a second session; a repeated
 * sign-in request only sends another link, within the address's sending limit.
 */
export const publicAppHandler = (
  deps: AppDeps,
  handle: (call: { body: unknown; event: ApiEvent; deps: MemberAppDeps }) => Promise<ApiResult>,
): ApiLambda => {
  const member = memberDeps(deps);
  return middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(memberAnswers({ clearCookieOn401: false }))
    .use(respond(deps.logger))
    .use(sameOrigin(deps))
    .use(jsonBody())
    .use(queryRule(false))
    .use(handOver)
    .handler(async (event, context) => handle({ body: (context as MemberContext).body, event, deps: member }));
};

/** The `{id}` of a path; an id that cannot exist is simply not found. */
export const pathIdOf = (event: ApiEvent, what: string) => {
  const id = event.pathParameters?.id;
  if (!isId(id)) throw notFound(`No ${what} with this id.`);
  return id;
};
