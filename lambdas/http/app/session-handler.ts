import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ApiError, forbidden, notFound } from '#core/errors.ts';
import { isId } from '#core/ids.ts';
import { SESSION_SECONDS, type MemberCaller } from '#core/member-access.ts';
import { csrfMatches, resolveSession } from '#core/use-cases/member-sign-in.ts';
import type { AppDeps } from '../../app-deps.ts';
import { idempotency } from '../middleware/idempotency.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { respond } from '../middleware/respond.ts';
import { withHeaders } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiMiddleware, ApiResult, ApiState } from '../types.ts';
import { memberDeps, type MemberAppDeps } from './member-deps.ts';

/**
 * The middleware stack of the member endpoints (docs/web-api.md, Member endpoints), as
 * api-handler.ts is for API keys: errors and `Cache-Control: no-store` on every answer; for a POST,
 * no cross-site caller (Origin, Sec-Fetch-Site); the session cookie; for a POST, the CSRF header;
 * the JSON body; then the endpoint, which calls one use case and serialises.
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
    request.internal.member = await resolveSession(deps, sessionTokenOf(request.event));
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

type MemberContext = Context & { member?: MemberCaller; body?: unknown };

const handOver: ApiMiddleware = {
  before: (request) => {
    const context = request.context as MemberContext;
    context.member = request.internal.member as MemberCaller | undefined;
    context.body = request.internal.body;
  },
};

export interface SessionCall {
  caller: MemberCaller;
  body: unknown;
  event: ApiEvent;
  deps: MemberAppDeps;
}

/**
 * An endpoint for a signed-in member. `idempotent`: a POST that takes an `Idempotency-Key` as the
 * API's do (SPEC.md idempotency rules, the member's keys apart from any API key's), its
 * `secretFields` null in every replay.
 */
export const sessionHandler = (
  deps: AppDeps,
  handle: (call: SessionCall) => Promise<ApiResult>,
  options: { idempotent?: { secretFields: readonly string[] } } = {},
): ApiLambda => {
  const member = memberDeps(deps);
  const replays = options.idempotent
    ? [idempotency(deps.idempotency, options.idempotent.secretFields, (state) => `member:${(state.member as MemberCaller).member.id}`)]
    : [];
  return middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(memberAnswers({ clearCookieOn401: true }))
    .use(respond(deps.logger))
    .use(sameOrigin(deps))
    .use(authenticateSession(member))
    .use(requireCsrf())
    .use(jsonBody())
    .use(replays)
    .use(handOver)
    .handler(async (event, context) => {
      const { member: caller, body } = context as MemberContext;
      return handle({ caller: caller!, body, event, deps: member });
    });
};

/** An endpoint anyone may call (sign-in, session): the same stack without the session. */
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
    .use(handOver)
    .handler(async (event, context) => handle({ body: (context as MemberContext).body, event, deps: member }));
};

/** The `{id}` of a path; an id that cannot exist is simply not found. */
export const pathIdOf = (event: ApiEvent, what: string) => {
  const id = event.pathParameters?.id;
  if (!isId(id)) throw notFound(`No ${what} with this id.`);
  return id;
};
