import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The HTTP server loop the stateful helpdesk fakes share (fake-zendesk, fake-jsm, fake-halopsa),
 * on loopback (127.0.0.1, a free port): it reads each request's body, routes it to an endpoint,
 * takes a scripted answer of that endpoint (`answerNext`) ahead of the fake's own, and keeps every
 * call with what was answered, for the test to check. What a vendor keeps, accepts and answers
 * stays in its fake.
 */

/** An answer to send instead of the normal one; `raw` is sent as is, `body` as JSON. 'hang': never answer. */
export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: unknown; raw?: string } | 'hang';

/** A fake's own answer: status, JSON body (none, and no Content-Type, when undefined) and extra headers. */
export type FakeAnswer = [status: number, body: unknown, headers?: Record<string, string>];

export interface HelpdeskCall<Endpoint extends string> {
  endpoint: Endpoint | null;
  method: string;
  /** The path with its query, as sent. */
  path: string;
  headers: Record<string, string>;
  /** The raw request body. */
  text: string;
  /** The answer sent: its status and JSON body (undefined when it had none), or 'hang'. */
  answer: { status: number; body: unknown } | 'hang';
  /** Whether the answer was scripted (answerNext) rather than the fake's own. */
  scripted: boolean;
}

export interface FakeHelpdeskServerOptions<Endpoint extends string, Route extends { endpoint: Endpoint | null }> {
  endpoints: readonly Endpoint[];
  /** The endpoint a request is for (null: none), with what the fake's answer needs from its path. */
  route: (method: string, path: string) => Route;
  /** The fake's own answer, when none was scripted. */
  answer: (req: IncomingMessage, route: Route, text: string) => FakeAnswer;
  /** The vendor's spelling of the Content-Type of JSON answers and of scripted `raw` ones. */
  contentTypes: { json: string; raw: string };
}

export const startFakeHelpdeskServer = async <Endpoint extends string, Route extends { endpoint: Endpoint | null }>(
  options: FakeHelpdeskServerOptions<Endpoint, Route>,
) => {
  const scripted = Object.fromEntries(options.endpoints.map((endpoint) => [endpoint, [] as ScriptedAnswer[]])) as Record<Endpoint, ScriptedAnswer[]>;
  const calls: HelpdeskCall<Endpoint>[] = [];
  const history: HelpdeskCall<Endpoint>[] = [];
  const hanging = new Set<ServerResponse>();
  const { json, raw: rawType } = options.contentTypes;

  /** Sends the scripted answer as given: with a Content-Type even when it has no body. */
  const sendScripted = (res: ServerResponse, script: Exclude<ScriptedAnswer, 'hang'>) => {
    const raw = script.raw ?? (script.body === undefined ? '' : JSON.stringify(script.body));
    res.writeHead(script.status, { 'Content-Type': script.raw === undefined ? json : rawType, ...script.headers });
    res.end(raw);
    return { status: script.status, body: script.body };
  };

  const sendOwn = (res: ServerResponse, [status, body, extra]: FakeAnswer) => {
    res.writeHead(status, { ...(body === undefined ? {} : { 'Content-Type': json }), ...extra });
    res.end(body === undefined ? '' : JSON.stringify(body));
    return { status, body };
  };

  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const method = req.method ?? '';
      const path = req.url ?? '';
      const route = options.route(method, path);
      const { endpoint } = route;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      const script = endpoint === null ? undefined : scripted[endpoint].shift();
      if (script === 'hang') hanging.add(res);
      const answer =
        script === 'hang' ? 'hang'
        : script ? sendScripted(res, script)
        : sendOwn(res, options.answer(req, route, text));
      const call: HelpdeskCall<Endpoint> = { endpoint, method, path, headers, text, scripted: script !== undefined, answer };
      calls.push(call);
      history.push({ ...call });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The calls since the last resetCalls. */
    calls,
    /** Every call since the start, for checks over the whole run (contract validation). */
    history,
    /** Calls to one endpoint. */
    callsTo: (endpoint: Endpoint) => calls.filter((call) => call.endpoint === endpoint),
    /** The next answers of `endpoint`, in order, before the normal handling resumes. */
    answerNext: (endpoint: Endpoint, ...answers: ScriptedAnswer[]) => scripted[endpoint].push(...answers),
    /** Forgets the calls and any scripted answers not used (the fake's own state stays). */
    resetCalls: () => {
      calls.length = 0;
      for (const queue of Object.values<ScriptedAnswer[]>(scripted)) queue.length = 0;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
};
