/**
 * The callers' side of API Gateway: every call the bench makes as a subject, a member or an API
 * client goes through here, which counts what the gateway bills and logs for it: one HTTP API
 * request, the answer's bytes out to the internet, and the stage's access log line. A call that
 * does not succeed fails the run: a cost of a handoff that did not happen means nothing.
 */
import { matchRoute } from '../../lambdas/http/routes.ts';
import { accessLogLineBytes } from './log-lines.ts';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** The bytes of an answer's status line and headers, roughly as they go out. */
const headerBytes = (headers: Headers) => [...headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 'HTTP/1.1 200 OK\r\n'.length + 2);

export class MeteredHttp {
  requests = 0;
  transferOutBytes = 0;
  accessLogBytes = 0;

  private readonly appUrl: string;

  /** `appUrl` as the local service gives it; called on 127.0.0.1, where it listens. */
  constructor(appUrl: string) {
    this.appUrl = appUrl.replace('//localhost:', '//127.0.0.1:');
  }

  async call(method: string, path: string, options: { headers?: Record<string, string>; json?: unknown } = {}): Promise<Answer> {
    const headers = { ...options.headers, ...(options.json === undefined ? {} : { 'Content-Type': 'application/json' }) };
    const started = performance.now();
    const response = await fetch(new URL(path, this.appUrl), { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) });
    const body = Buffer.from(await response.arrayBuffer());
    const latencyMs = performance.now() - started;
    const text = body.toString('utf8');
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    const match = matchRoute(method, new URL(path, this.appUrl).pathname);
    this.requests += 1;
    this.transferOutBytes += body.length + headerBytes(response.headers);
    this.accessLogBytes += accessLogLineBytes({
      method,
      routeKey: 'route' in match ? `${match.route.method} ${match.route.path}` : '$default',
      status: response.status,
      responseBytes: body.length,
      latencyMs,
    });
    return { status: response.status, headers: response.headers, text };
  }

  /** A call whose answer is JSON, parsed. */
  async json<T>(method: string, path: string, options: { headers?: Record<string, string>; json?: unknown } = {}): Promise<T> {
    return JSON.parse((await this.call(method, path, options)).text) as T;
  }

  reset() {
    this.requests = 0;
    this.transferOutBytes = 0;
    this.accessLogBytes = 0;
  }
}
