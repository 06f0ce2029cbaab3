import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { AppDeps } from '../app-deps.ts';
import { FALLBACK_ENTRY, matchRoute, type Route } from '../http/routes.ts';
import type { ApiEvent, ApiResult } from '../http/types.ts';
import { errorResponse } from '../http/responses.ts';
import { ApiError, headerFieldsTooLarge } from '#core/errors.ts';
import { MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES } from '../http/request-limits.ts';
import {
  answerClientError,
  eventCookies,
  eventHeaders,
  eventQuery,
  GATEWAY_SERVER_OPTIONS,
  headersTooLarge,
  readBody,
  requestUrl,
} from './gateway-request.ts';

const REPOSITORY_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

type Invoke = (event: ApiEvent, context: Context) => Promise<ApiResult>;
interface HandlerModule {
  createHandler(deps: AppDeps): Invoke;
}

export interface GatewayHooks {
  /** Wraps each invocation, as the function serving `route` (null: the fallback) would run it deployed. */
  aroundInvoke?: (route: Route | null, invoke: () => Promise<ApiResult>) => Promise<ApiResult>;
  /** Pages of the local runtime alone (no deployed route has their paths), by path; GET only. */
  localPages?: ReadonlyMap<string, () => Promise<ApiResult>>;
}

/**
 * Stands in for API Gateway (HTTP API, payload 2.0): turns each HTTP request into the event API
 * Gateway would send and calls the very handler the route table names, built with `deps`.
 */
export const createGateway = (deps: AppDeps, hooks: GatewayHooks = {}): Server => {
  const around = hooks.aroundInvoke ?? ((_route, invoke) => invoke());
  const handlers = new Map<string, Promise<Invoke>>();
  const handlerFor = (entry: string) => {
    let handler = handlers.get(entry);
    if (!handler) {
      handler = import(pathToFileURL(resolve(REPOSITORY_ROOT, entry)).href).then((module: HandlerModule) =>
        module.createHandler(deps),
      );
      handlers.set(entry, handler);
    }
    return handler;
  };

  const server = createServer(GATEWAY_SERVER_OPTIONS, async (req, res) => {
    let result: ApiResult;
    try {
      // API Gateway's quota on the request line and header values comes first, as deployed; the
      // body is still read to its end, so the client hears the answer instead of a reset.
      if (headersTooLarge(req)) {
        await readBody(req, { discard: true });
        throw headerFieldsTooLarge(MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES);
      }
      const body = asEventBody(await readBody(req));
      const url = requestUrl(req);
      const method = (req.method ?? 'GET').toUpperCase();
      // A local page is the same with a closing slash (`/local/outbox/`), as a person may type it.
      const localPage = method === 'GET' ? hooks.localPages?.get(url.pathname.replace(/(?<=.)\/+$/, '')) : undefined;
      if (localPage) return send(res, await localPage());
      const match = matchRoute(method, url.pathname);
      const route: Route | null = 'route' in match ? match.route : null;
      const event = toEvent(req, url, body, route, 'route' in match ? match.pathParameters : undefined);
      const invoke = await handlerFor(route?.entry ?? FALLBACK_ENTRY);
      result = await around(route, () => invoke(event, lambdaContext(route?.name ?? 'fallback')));
    } catch (error) {
      if (!(error instanceof ApiError)) deps.logger.error('local gateway failure', { errorName: (error as Error)?.name });
      result = errorResponse(error);
    }
    // A body that was not read to its end (a client that kept sending far past the limit) ends the connection.
    if (!req.complete) res.setHeader('Connection', 'close');
    send(res, result);
  });
  server.on('clientError', answerClientError);
  return server;
};

/**
 * The body as API Gateway passes it: text as it is, anything that is not valid UTF-8 as base64 with
 * `isBase64Encoded` (a signature over the exact bytes must still verify).
 */
const asEventBody = (raw: Buffer) => {
  const text = raw.toString('utf8');
  return Buffer.from(text, 'utf8').equals(raw) ? { text, base64: false } : { text: raw.toString('base64'), base64: true };
};

/** IPv4 callers arrive on a dual-stack socket as ::ffff:a.b.c.d; API Gateway reports a.b.c.d. */
const sourceIpOf = (req: IncomingMessage) => (req.socket.remoteAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');

const toEvent = (
  req: IncomingMessage,
  url: URL,
  body: { text: string; base64: boolean },
  route: Route | null,
  pathParameters: Record<string, string> | undefined,
): ApiEvent => {
  const headers = eventHeaders(req);
  const now = new Date();
  const routeKey = route ? `${route.method} ${route.path}` : '$default';
  const method = (req.method ?? 'GET').toUpperCase();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    cookies: eventCookies(req),
    headers,
    queryStringParameters: eventQuery(url),
    pathParameters,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: sourceIpOf(req), userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.text === '' ? undefined : body.text,
    isBase64Encoded: body.base64,
  };
};

const lambdaContext = (functionName: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
  memoryLimitInMB: '512',
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => 29_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

const send = (res: ServerResponse, result: ApiResult) => {
  res.statusCode = result.statusCode;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  // Payload 2.0 returns cookies beside the headers; API Gateway sends each as a Set-Cookie header.
  if (result.cookies?.length) res.setHeader('Set-Cookie', result.cookies);
  // A binary answer (a PDF) comes back base64 with isBase64Encoded, which API Gateway decodes.
  res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
};

/** Listens on loopback; port 0 picks a free one. */
export const listen = (server: Server, port: number, host = '127.0.0.1') =>
  new Promise<number>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done((server.address() as { port: number }).port));
  });
