import * as http from 'node:http';
import * as https from 'node:https';
import type { WebhookPoster, WebhookRequest } from '#core/ports.ts';
import { checkWebhookUrl } from '#core/webhook-url.ts';
import { WebhookTimedOut } from '#core/delivery-lanes.ts';
import { checkHostAddresses, pinnedLookup, systemResolve, type ResolvedAddress, type Resolver } from './public-address.ts';

export type { ResolvedAddress, Resolver } from './public-address.ts';

/** The target was refused before connecting (scheme, or an address that is not public). */
export class WebhookTargetRefused extends Error {
  override readonly name = 'WebhookTargetRefused';
}

export interface WebhookHttpOptions {
  /**
   * Loopback receivers (127.0.0.0/8, ::1), and plain http to them, are allowed: the local runtime
   * and tests only. The deployed wiring never sets it. Private and other special addresses stay refused.
   */
  allowLoopback?: boolean;
  resolve?: Resolver;
  /** Defaults to node:http / node:https `request`. */
  transport?: { http: typeof http.request; https: typeof https.request };
  /** Largest response body read (and thrown away). */
  maxResponseBytes?: number;
}

/** How long a response body is read (and thrown away) after its status line. */
const BODY_DRAIN_MS = 1_000;

/**
 * The outbound webhook client. Checks the target at connect time against DNS rebinding
 * (public-address.ts) and connects to the address it checked. Never follows redirects: a 3xx is
 * just a status. One overall timeout.
 */
export class WebhookHttp implements WebhookPoster {
  private readonly resolve: Resolver;
  private readonly transport: NonNullable<WebhookHttpOptions['transport']>;

  constructor(private readonly options: WebhookHttpOptions = {}) {
    this.resolve = options.resolve ?? systemResolve;
    this.transport = options.transport ?? { http: http.request, https: https.request };
  }

  /** The address to connect to, after checking every address the name resolves to. */
  async checkedAddress(url: URL): Promise<ResolvedAddress> {
    const allowLoopback = this.options.allowLoopback === true;
    const form = checkWebhookUrl(url.href, { allowLoopback });
    if (!form.ok) throw new WebhookTargetRefused(`webhook URL refused: ${form.reason}`);
    const checked = await checkHostAddresses(url.hostname, { allowLoopback, resolve: this.resolve });
    if (!checked.ok) throw new WebhookTargetRefused(`webhook host ${checked.reason}`);
    if (url.protocol === 'http:' && !checked.allLoopback) throw new WebhookTargetRefused('plain http is allowed to loopback receivers only');
    return checked.address;
  }

  async post(request: WebhookRequest): Promise<{ status: number }> {
    const url = URL.canParse(request.url) ? new URL(request.url) : null;
    if (!url) throw new WebhookTargetRefused('webhook URL refused: not an absolute URL');
    // The timeout covers the whole attempt, name lookup included.
    const deadline = Date.now() + request.timeoutMs;
    let lookupTimer: NodeJS.Timeout | undefined;
    const pinned = await Promise.race([
      this.checkedAddress(url),
      new Promise<never>((_, reject) => {
        lookupTimer = setTimeout(() => reject(new WebhookTimedOut()), request.timeoutMs);
      }),
    ]).finally(() => clearTimeout(lookupTimer));
    const lookup = pinnedLookup(pinned);
    const send = url.protocol === 'https:' ? this.transport.https : this.transport.http;
    const maxBytes = this.options.maxResponseBytes ?? 64 * 1024;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'POST',
          headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
          lookup,
          agent: false,
        },
        (res) => {
          // The status line is the answer: a body that is slow to follow does not turn a 2xx into a
          // timeout. What body there is gets read and thrown away, briefly and up to a limit.
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0 });
          let read = 0;
          const drain = setTimeout(() => res.destroy(), BODY_DRAIN_MS);
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > maxBytes) res.destroy();
          });
          res.on('error', () => undefined);
          res.on('close', () => clearTimeout(drain));
          res.resume();
        },
      );
      const timer = setTimeout(() => req.destroy(new WebhookTimedOut()), Math.max(0, deadline - Date.now()));
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(request.body);
    });
  }
}
