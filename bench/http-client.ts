import { Agent, request } from 'node:http';

/** A keep-alive HTTP/1.1 client with as little overhead as Node allows, for measuring the server. */
export const createClient = (baseUrl: string, apiKey: string) => {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> =>
    send(method, path, body).catch((error: Error & { reusedSocket?: boolean; code?: string }) => {
      // A kept-alive socket the server closed (idle timeout) just as the request went out: the
      // server never read the request, so it is safe to send again, once (Node's documented pattern).
      if (error.reusedSocket && error.code === 'ECONNRESET') return send(method, path, body);
      throw error;
    });
  const send = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
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
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${path} answered ${res.statusCode}: ${text}`));
            else resolve({ status: res.statusCode ?? 0, body: text });
          });
        },
      );
      req.on('error', (error: Error & { reusedSocket?: boolean }) => {
        error.message = `${method} ${path}: ${error.message}`;
        error.reusedSocket = req.reusedSocket;
        reject(error);
      });
      req.end(payload);
    });
  return { call, close: () => agent.destroy() };
};
