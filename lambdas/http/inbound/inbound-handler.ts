import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { admitInboundPost, useInboundPost, type AdmittedPost, type InboundAction, type InboundDeps, type InboundPost } from '#core/use-cases/inbound/receive-post.ts';
import type { AppDeps } from '../../app-deps.ts';
import { bodyLimit } from '../middleware/body-limit.ts';
import { respond } from '../middleware/respond.ts';
import { ticketDeps } from '../ticket-deps.ts';
import { json } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiMiddleware, ApiResult, ApiState } from '../types.ts';
import { inboundReplays } from './inbound-replays.ts';

/** Header names in lower case (API Gateway sends them so; the local gateway too), values as sent. */
const headersOf = (event: ApiEvent) => {
  // No prototype: a sender's header named `__proto__` is a field like any other.
  const headers: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
};

const postOf = (event: ApiEvent): InboundPost => {
  const headers = headersOf(event);
  return {
    secret: event.pathParameters?.secret ?? '',
    headers,
    // API Gateway hands over a body that is not text as base64: either way, the bytes as sent.
    rawBody: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
    contentType: headers['content-type'],
    query: event.queryStringParameters ?? {},
  };
};

type InboundContext = Context & { inbound?: { post: InboundPost; admitted: AdmittedPost } };

/**
 * The URL, rate limit, hardening and state checks, before the Idempotency-Key is looked at: only a
 * sender who passes them may claim a key or be replayed an answer.
 */
const admit = (deps: InboundDeps, action: InboundAction): ApiMiddleware => ({
  before: async (request) => {
    const post = postOf(request.event);
    const inbound = { post, admitted: await admitInboundPost(deps, action, post) };
    // In the call's state for the Idempotency-Key's owner and fingerprint, in the context for the handler.
    request.internal.inbound = inbound;
    (request.context as InboundContext).inbound = inbound;
  },
});

/** What one URL's function adds or puts in place (status.ts: the webhook URL's). */
type InboundExtras = Partial<Pick<InboundDeps, 'ticketIndex' | 'indexedRequests' | 'urlMemory' | 'integrations'>>;

/**
 * An inbound ticket URL: the secret in the path is the credential (no API key), the body is read
 * as sent (a signature covers the exact bytes), errors as everywhere, an Idempotency-Key honoured
 * when the sender sends one (inbound-replays.ts), and no answer is cached. Nothing of the post is
 * logged: a helpdesk's body can carry customer data. `extra` is made once per container, as the
 * handler is: a memory of the URLs lives as long as the container does.
 */
export const inboundHandler = (deps: AppDeps, action: InboundAction, extra: InboundExtras = {}): ApiLambda => {
  const inbound: InboundDeps = { ...ticketDeps(deps), ...extra };
  const chain = middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(respond(deps.logger))
    .use(bodyLimit())
    .use(admit(inbound, action))
    .use(inboundReplays(deps.idempotency, action.purpose))
    .handler(async (_event, context) => {
      const { post, admitted } = (context as InboundContext).inbound!;
      return json(202, await useInboundPost(inbound, action, admitted, post));
    });
  // The reads a post starts together (the integration, its organisation, the ticket index's items)
  // go as one BatchGetItem beside the rate count: a status for an unknown ticket is one round.
  const reads = deps.readBatching;
  return (reads ? (event: ApiEvent, context: Context) => reads.scope(() => chain(event, context)) : chain) as ApiLambda;
};
