import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { receiveInboundPost, type InboundAction } from '#core/use-cases/inbound/receive-post.ts';
import type { AppDeps } from '../../app-deps.ts';
import { bodyLimit } from '../middleware/body-limit.ts';
import { respond } from '../middleware/respond.ts';
import { ticketDeps } from '../ticket-deps.ts';
import { json } from '../responses.ts';
import type { ApiEvent, ApiLambda, ApiResult, ApiState } from '../types.ts';

/** Header names in lower case (API Gateway sends them so; the local gateway too), values as sent. */
const headersOf = (event: ApiEvent) => {
  // No prototype: a sender's header named `__proto__` is a field like any other.
  const headers: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
};

/**
 * An inbound ticket URL: the secret in the path is the credential (no API key), the body is read
 * as sent (a signature covers the exact bytes), errors as everywhere, and no answer is cached.
 * Nothing of the post is logged: a helpdesk's body can carry customer data.
 */
export const inboundHandler = (deps: AppDeps, action: InboundAction): ApiLambda => {
  const inbound = ticketDeps(deps);
  return middy<ApiEvent, ApiResult, Error, Context, ApiState>()
    .use(respond(deps.logger))
    .use(bodyLimit())
    .handler(async (event) => {
      const headers = headersOf(event);
      const body = event.body ?? '';
      const ack = await receiveInboundPost(inbound, action, {
        secret: event.pathParameters?.secret ?? '',
        headers,
        // API Gateway hands over a body that is not text as base64: either way, the bytes as sent.
        rawBody: Buffer.from(body, event.isBase64Encoded ? 'base64' : 'utf8'),
        contentType: headers['content-type'],
        query: event.queryStringParameters ?? {},
      });
      return json(202, ack, { 'Cache-Control': 'no-store' });
    });
};
