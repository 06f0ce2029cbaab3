import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A keep-alive HTTP/1.1 client with as little overhead as Node allows, for measuring the server.
 * `exchange` answers whatever the status; `call` throws on a status of 300 or more.
 */
export const createClient = (baseUrl: string, apiKey: string) => {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const exchange = (method: string, path: string, body?: unknown): Promise<Answer> =>
    send(method, path, body).catch((error: Error & { reusedSocket?: boolean; code?: string }) => {
      // A kept-alive socket the server closed (idle timeout) just as the request went out: the
      // server never read the request, so it is safe to send again, once (Node's documented pattern).
      if (error.reusedSocket && error.code === 'ECONNRESET') return send(method, path, body);
      throw error;
    });
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> => {
    const answer = await exchange(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body}`);
    return { status: answer.status, body: answer.body };
  };
  const send = (method: string, path: string, body?: unknown) =>
    new Promise<Answer>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname,
          port: url.port,
          path: `${url.pathname.replace(/\/$/, '')}${path}`,
          method,
          agent,
          headers: {
            Authorization: `Bearer ${apiKey}`,
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', (error: Error & { reusedSocket?: boolean }) => {
        error.message = `${method} ${path}: ${error.message}`;
        error.reusedSocket = req.reusedSocket;
        reject(error);
      });
      req.end(payload);
    });
  return { call, exchange, close: () => agent.destroy() };
};
