/**
 * The loopback receiver the webhook figures deliver to: it answers 200 only to a delivery it
 * verified as a receiver would (the `standardwebhooks` library and the legacy
 * X-Service-Signature header), and counts the verified receipts by event id.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { legacySignature } from '../lambdas/core/webhook-signature.ts';

/** How far the legacy header's timestamp may be from now (the standardwebhooks library's tolerance). */
const TOLERANCE_SECONDS = 300;

const headerText = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));

interface DeliveredEvent {
  id: string;
  type: string;
  occurred_at: string;
  data: { request?: { id?: string } };
}

/**
 * Checks one delivery with both schemes, as a receiver would: the Standard Webhooks headers with
 * the library, and the legacy `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` header by
 * recomputing it (constant-time compare, the same timestamp tolerance). Returns the event or why not.
 */
const verifyDelivery = (webhook: Webhook, secret: string, body: string, headers: Record<string, string>): DeliveredEvent | string => {
  let payload: DeliveredEvent;
  try {
    payload = webhook.verify(body, headers) as DeliveredEvent;
  } catch (error) {
    return `standardwebhooks: ${(error as Error).message}`;
  }
  const legacy = headers['x-service-signature'] ?? '';
  const parts = /^t=(\d+),v1=[0-9a-f]{64}$/.exec(legacy);
  if (!parts) return `legacy header missing or malformed: ${JSON.stringify(legacy)}`;
  const t = Number(parts[1]);
  if (Math.abs(Date.now() / 1000 - t) > TOLERANCE_SECONDS) return `legacy timestamp ${t} outside the tolerance`;
  const expected = Buffer.from(legacySignature(secret, t, body));
  const given = Buffer.from(legacy);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'legacy signature does not match';
  if (payload.type !== 'request.created' || typeof payload.id !== 'string' || typeof payload.data?.request?.id !== 'string') {
    return `unexpected event: ${body.slice(0, 200)}`;
  }
  return payload;
};

export interface Receipt {
  /** Verified receipts of this event. */
  count: number;
  /** When it was first received verified. */
  at: number;
  requestId: string;
  occurredAt: string;
  /** The X-Service-Delivery header of the first verified receipt. */
  deliveryId: string;
}

/** A loopback receiver that answers 200 only to deliveries it verified, and counts them by event id. */
export const startReceiver = async () => {
  const receipts = new Map<string, Receipt>();
  const failures: string[] = [];
  let signing: { webhook: Webhook; secret: string } | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // The raw body, byte for byte as signed.
      const body = Buffer.concat(chunks).toString('utf8');
      const verified = signing && req.method === 'POST' && req.url === '/hook' ? verifyDelivery(signing.webhook, signing.secret, body, headerText(req.headers)) : `unexpected ${req.method} ${req.url}`;
      if (typeof verified === 'string') {
        failures.push(`${String(req.headers['x-service-delivery'] ?? '?')}: ${verified}`);
        res.writeHead(400).end();
        return;
      }
      const at = Date.now();
      const seen = receipts.get(verified.id);
      if (seen) seen.count++;
      else receipts.set(verified.id, { count: 1, at, requestId: verified.data.request!.id!, occurredAt: verified.occurred_at, deliveryId: String(req.headers['x-service-delivery']) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    failures,
    sign: (secret: string) => void (signing = { webhook: new Webhook(secret), secret }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(() => done(undefined)));
    },
  };
};

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
