import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';
import { checkHostAddresses, pinnedLookup, systemResolve, type Resolver } from '../public-address.ts';

/** The helpdesk's host resolves to an address that is not public: nothing was sent to it. */
export class HelpdeskTargetRefused extends Error {
  override readonly name = 'HelpdeskTargetRefused';
}

export interface PinnedFetchOptions {
  /** Plain http to 127.0.0.1: the local runtime and tests only. */
  allowLoopback?: boolean;
  resolve?: Resolver;
}

/** The answer's headers as the Fetch API's, repeated ones kept. */
const headersOf = (message: http.IncomingMessage) => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return headers;
};

/** Statuses whose answer has no body, which a Response must not be given one for. */
const NO_BODY = new Set([204, 205, 304]);

/**
 * A `fetch` for the helpdesk adapters that connects only to a public address of the helpdesk's
 * host, checked when it connects (public-address.ts), as the webhook client does: a helpdesk URL
 * whose name resolves (now, or after a DNS change) to a loopback, private or metadata address gets
 * no request and no credential. The runtime's fetch cannot be told which address to connect to.
 * It takes what HelpdeskHttp sends (a method, string headers, a string body, a signal); a redirect
 * is never followed (node:http does not follow one).
 */
export const pinnedFetch =
  (options: PinnedFetchOptions = {}) =>
  async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const checked = await checkHostAddresses(url.hostname, { allowLoopback: options.allowLoopback === true, resolve: options.resolve ?? systemResolve });
    if (!checked.ok) throw new HelpdeskTargetRefused(`helpdesk host ${checked.reason}`);
    const body = typeof init.body === 'string' ? init.body : undefined;
    const headers = { ...(init.headers as Record<string, string> | undefined), ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }) };
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const request = send(url, { method: init.method ?? 'GET', headers, lookup: pinnedLookup(checked.address), agent: false, signal: init.signal ?? undefined }, (answer) => {
        const status = answer.statusCode ?? 0;
        const stream = NO_BODY.has(status) ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
        if (stream === null) answer.resume();
        resolve(new Response(stream, { status, statusText: answer.statusMessage, headers: headersOf(answer) }));
      });
      request.on('error', reject);
      request.end(body);
    });
  };
