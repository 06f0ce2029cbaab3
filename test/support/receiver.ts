import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { legacySignature } from '../../lambdas/core/webhook-signature.ts';

export interface Receipt {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The event the body carries; with a secret given, only when it verified with both signatures. */
  eventId: string | null;
  /** What the receiver answered, or 'hang' when it kept the request open without answering. */
  answer: number | 'hang';
}

/** A status, a status with headers (a redirect), or 'hang': keep the request open, never answer. */
type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

/**
 * A webhook receiver on loopback. Given a secret, it is one as a customer would write: it verifies
 * every delivery with the `standardwebhooks` library and with the legacy X-Service-Signature
 * header, over the raw body, before it answers, and a delivery that fails to verify gets 400.
 * Without one it keeps what came for the test to check (tests that sign under a fake clock, or
 * with several secrets). `answer` decides each answer (default 204).
 */
export const startReceiver = async (options: { secret?: () => string; answer?: (receipt: Omit<Receipt, 'answer'>) => Answer } = {}) => {
  const receipts: Receipt[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const headers = flatten(req.headers);
      const eventId = options.secret ? verify(options.secret(), headers, body) : bodyEventId(body);
      const receipt = { path: req.url ?? '', headers, body, eventId };
      const answer: Answer = options.secret && eventId === null ? 400 : (options.answer?.(receipt) ?? 204);
      if (answer === 'hang') hanging.add(res);
      else if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(answer.status, answer.headers).end();
      receipts.push({ ...receipt, answer: typeof answer === 'object' ? answer.status : answer });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receipts,
    /** Event ids of the deliveries it verified and answered with a 2xx. */
    delivered: () => new Set(receipts.filter((r) => r.eventId && typeof r.answer === 'number' && r.answer < 300).map((r) => r.eventId!)),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
};

const flatten = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

const bodyEventId = (body: string): string | null => {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
};

/** The body's event id when both signatures hold, else null. */
const verify = (secret: string, headers: Record<string, string>, body: string): string | null => {
  try {
    const payload = new Webhook(secret).verify(body, headers) as { id?: unknown };
    const legacy = legacySignature(secret, Number(headers['webhook-timestamp']), body);
    return headers['x-service-signature'] === legacy && typeof payload.id === 'string' ? payload.id : null;
  } catch {
    return null;
  }
};
