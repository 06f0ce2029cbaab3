import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { notFound } from '#core/errors.ts';
import { RANDOM_TOKEN_PATTERN, sha256Hex } from '#core/hashing.ts';
import { isCurrentLink, linkClosed } from '#core/subject-flow.ts';
import type { LinkHolder, SubjectDeps } from '#core/use-cases/subject/subject-context.ts';
import type { AppDeps } from '../../app-deps.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { refuseAnyBody } from '../no-body.ts';
import { refuseQueryParameters } from '../query-rule.ts';
import { respond } from '../middleware/respond.ts';
import { json } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiMiddleware, ApiResult, ApiState } from '../types.ts';

/**
 * The subject's link token, sent by the page in `X-Link-Token`, opens one request; the subject
 * pass in `X-Subject-Pass` (optional) says which browser passed the code.
 */
const linkToken = (deps: AppDeps): ApiMiddleware => ({
  before: async (request) => {
    const token = request.event.headers?.['x-link-token'];
    if (!token || !RANDOM_TOKEN_PATTERN.test(token)) throw notFound('This link is not valid.');
    const tokenHash = sha256Hex(token);
    const handoff = await deps.requests.findByLinkTokenHash(tokenHash);
    const org = handoff ? await deps.directory.getOrganisation(handoff.orgId) : null;
    if (!handoff || !org) throw notFound('This link is not valid.');
    // A relinked request's older links stay known, so their page can say why they stopped working.
    if (!isCurrentLink(handoff, tokenHash)) throw linkClosed('replaced');
    // The subject pass, from the browser that passed the code: anything not shaped like one is no pass.
    const pass = request.event.headers?.['x-subject-pass'];
    const passHash = pass && RANDOM_TOKEN_PATTERN.test(pass) ? sha256Hex(pass) : null;
    request.internal.link = { request: handoff, org, tokenHash, passHash } satisfies LinkHolder;
  },
});

type LinkContext = Context & { link?: LinkHolder; body?: unknown };

/**
 * Subject endpoints: errors as everywhere, the link token instead of an API key, a JSON body (none,
 * with `takesNoBody`: any member answers 422), no query parameters (422 by name), one use case.
 */
export const linkHandler = (
  deps: AppDeps,
  run: (deps: SubjectDeps, holder: LinkHolder, body: unknown) => Promise<unknown>,
  status = 200,
  options: { takesNoBody?: boolean } = {},
): ApiLambda =>
  middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(respond(deps.logger))
    .use(linkToken(deps))
    .use(jsonBody())
    .use({
      before: (request) => {
        const context = request.context as LinkContext;
        context.link = request.internal.link as LinkHolder;
        context.body = request.internal.body;
      },
    })
    .handler(async (event, context) => {
      const { link, body } = context as LinkContext;
      refuseQueryParameters(event);
      if (options.takesNoBody) refuseAnyBody(body);
      return json(status, await run(deps, link!, body));
    });
