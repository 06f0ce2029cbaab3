import { STATUS_CODES, type IncomingMessage, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, badRequest, headerFieldsTooLarge, payloadTooLarge } from '#core/errors.ts';
import { errorResponse } from '../http/responses.ts';
import { MAX_BODY_BYTES, MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES } from '../http/request-limits.ts';

/**
 * How the local gateway reads an HTTP request the way API Gateway (HTTP API, payload 2.0) would:
 * its limits, answered with SPEC.md's JSON error body instead of a bare status or a reset, and
 * its headers, cookies and query as the event carries them.
 */

/**
 * Node refuses a request whose request line and headers (names included) pass this, before any
 * handler runs, in `clientError` below. It sits above API Gateway's 10,240 bytes of request line
 * and header values, so the exact API Gateway figure is checked by `headersTooLarge` instead.
 */
export const GATEWAY_SERVER_OPTIONS: ServerOptions = { maxHeaderSize: 16 * 1024 };

/**
 * Past this much body the gateway stops draining and closes the connection after its 413: a client
 * that keeps sending that long is not waiting for an answer. Below it, the rest of an over-limit
 * body is read and dropped, so the client is not reset mid-send and reads the 413.
 */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/** The request line and header values, counted as API Gateway counts them against its quota. */
export const headersTooLarge = (req: IncomingMessage) => {
  let size = Buffer.byteLength(`${req.method ?? ''} ${req.url ?? ''} HTTP/${req.httpVersion}`);
  for (let index = 1; index < req.rawHeaders.length; index += 2) size += Buffer.byteLength(req.rawHeaders[index]);
  return size > MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES;
};

/**
 * The body's bytes. Over MAX_BODY_BYTES (or when `discard`), what arrives is dropped and the
 * promise rejects with 413 `payload_too_large` once the body has ended (a `discard` read resolves
 * empty), so the answer goes to a client that is listening.
 */
export const readBody = (req: IncomingMessage, { discard = false } = {}) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAINED_BYTES) {
        req.removeAllListeners('data');
        fail(payloadTooLarge(MAX_BODY_BYTES));
        return;
      }
      if (discard || tooLarge) return;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => (tooLarge ? fail(payloadTooLarge(MAX_BODY_BYTES)) : done(discard ? Buffer.alloc(0) : Buffer.concat(chunks))));
    req.on('error', fail);
  });

/**
 * The request target as a URL on a fixed origin: `//host/x` stays a path (not a host) and a
 * target no URL can hold answers 400 instead of failing the gateway.
 */
export const requestUrl = (req: IncomingMessage) => {
  const target = req.url ?? '/';
  try {
    return new URL(`http://localhost${target.startsWith('/') ? '' : '/'}${target}`);
  } catch {
    throw badRequest('The request target is not a valid path.');
  }
};

/**
 * Header names in lower case with their values as payload 2.0 carries them: a header sent more
 * than once is joined with commas (API Gateway does so; Node would keep only the first
 * `Authorization`, which let a second one pass unseen), and cookies go to `cookies` instead.
 * Built from entries, so a header named `__proto__` is an own field like any other.
 */
export const eventHeaders = (req: IncomingMessage) => {
  const entries: Array<[string, string]> = [];
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values !== undefined && name !== 'cookie') entries.push([name, values.join(',')]);
  }
  return Object.fromEntries(entries) as Record<string, string>;
};

/** Every `name=value` of every Cookie header, in order, as payload 2.0's `cookies`. */
export const eventCookies = (req: IncomingMessage) => {
  const cookies = (req.headersDistinct.cookie ?? []).flatMap((header) => header.split(/;\s*/)).filter((cookie) => cookie !== '');
  return cookies.length > 0 ? cookies : undefined;
};

/** Query parameters decoded, a repeated name's values joined with commas (payload 2.0), as own fields. */
export const eventQuery = (url: URL) => {
  const query = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    const before = query.get(name);
    query.set(name, before === undefined ? value : `${before},${value}`);
  }
  return query.size > 0 ? (Object.fromEntries(query) as Record<string, string>) : undefined;
};

/**
 * Node's parser refused the request (headers past GATEWAY_SERVER_OPTIONS, a malformed request
 * line): answer SPEC.md's error body on the socket, then keep reading what the client still sends
 * until it closes (or briefly), so it reads the answer instead of a reset.
 */
export const answerClientError = (error: Error & { code?: string }, socket: Duplex) => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? headerFieldsTooLarge(MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError(408, 'request_timeout', 'The request did not arrive in time.')
        : badRequest('The request is not valid HTTP.');
  const result = errorResponse(apiError);
  const body = Buffer.from(result.body ?? '', 'utf8');
  const head = [
    `HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode] ?? ''}`,
    ...Object.entries(result.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  setTimeout(() => socket.destroy(), 5_000).unref();
};
