import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundAuthMode } from './recipes.ts';

/**
 * Checks the optional hardening of an inbound webhook post (SPEC.md, Inbound generic ticket
 * webhook, point 3) and the signatures helpdesks send natively. The URL's own secret has
 * already been checked by then; this is the second factor. Nothing here throws: a malformed
 * header is `missing` or `mismatch`, both answered 401.
 */
export type AuthOutcome = 'ok' | 'missing' | 'mismatch' | 'stale';

export interface InboundAuthInput {
  mode: InboundAuthMode;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The exact bytes received (a string is taken as its UTF-8 bytes): a signature covers them, not a re-serialisation. */
  rawBody: string | Buffer;
  /** The header value for 'header', the signing secret otherwise. */
  secret: string | null;
  headerName: string | null;
  now: Date;
}

/** SPEC.md: a signature's timestamp must be within five minutes of the current time. */
export const MAX_SIGNATURE_AGE_SECONDS = 300;

/**
 * Constant-time equality of two strings of any length: comparing their SHA-256 digests keeps
 * timingSafeEqual's equal-length requirement from leaking the expected length.
 */
const sameText = (given: string, expected: string) =>
  timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());

const headerOf = (headers: Record<string, string | undefined>, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === wanted) return headers[key];
  }
  return undefined;
};

/** HMAC over a text prefix (a timestamp) then the body's exact bytes. */
const hmac = (algorithm: 'sha256' | 'sha1', secret: string, prefix: string, body: string | Buffer) =>
  createHmac(algorithm, secret).update(prefix).update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

const isStale = (signedAtMs: number, now: Date) => {
  const nowMs = now.getTime();
  // An invalid clock must not turn the window off.
  if (!Number.isFinite(nowMs) || !Number.isFinite(signedAtMs)) return true;
  // Timestamps are whole seconds, so the current time is taken as its whole second too: counted in
  // milliseconds, a timestamp 300 seconds old was refused for the fraction of the second already
  // gone, while one 300 seconds ahead was let through.
  return Math.abs(Math.floor(nowMs / 1000) - Math.floor(signedAtMs / 1000)) > MAX_SIGNATURE_AGE_SECONDS;
};

const checkHeader = (input: InboundAuthInput): AuthOutcome => {
  if (!input.headerName || !input.secret) return 'mismatch';
  const given = headerOf(input.headers, input.headerName);
  if (given === undefined) return 'missing';
  return sameText(given, input.secret) ? 'ok' : 'mismatch';
};

/** `t=<unix>,v1=<hex>[,v1=<hex>…]` in any order; null when there is no usable t or v1. */
const parseServiceSignature = (value: string): { timestamp: number; signatures: string[] } | null => {
  const timestamps: string[] = [];
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const key = part.slice(0, equals).trim();
    const text = part.slice(equals + 1).trim();
    if (key === 't') timestamps.push(text);
    else if (key === 'v1' && text !== '') signatures.push(text.toLowerCase());
  }
  // Two timestamps would leave it open which one was signed.
  if (timestamps.length !== 1 || !/^\d{1,12}$/.test(timestamps[0]) || signatures.length === 0) return null;
  return { timestamp: Number(timestamps[0]), signatures };
};

const checkServiceHmac = (input: InboundAuthInput): AuthOutcome => {
  if (!input.secret) return 'mismatch';
  const header = headerOf(input.headers, 'x-service-signature');
  const parsed = header === undefined ? null : parseServiceSignature(header);
  if (parsed === null) return 'missing';
  const expected = hmac('sha256', input.secret, `${parsed.timestamp}.`, input.rawBody).digest('hex');
  // Every entry is compared, so the time taken does not say which one matched.
  const matched = parsed.signatures.map((signature) => sameText(signature, expected)).includes(true);
  if (!matched) return 'mismatch';
  return isStale(parsed.timestamp * 1000, input.now) ? 'stale' : 'ok';
};

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Zendesk: base64 HMAC-SHA256, keyed with the secret as text, over timestamp + raw body. */
const checkZendesk = (input: InboundAuthInput): AuthOutcome => {
  if (!input.secret) return 'mismatch';
  const signature = headerOf(input.headers, 'x-zendesk-webhook-signature')?.trim();
  const timestamp = headerOf(input.headers, 'x-zendesk-webhook-signature-timestamp')?.trim();
  if (!signature || !timestamp || !ISO_8601.test(timestamp)) return 'missing';
  const signedAt = Date.parse(timestamp);
  if (!Number.isFinite(signedAt)) return 'missing';
  const expected = hmac('sha256', input.secret, timestamp, input.rawBody).digest('base64');
  if (!sameText(signature, expected)) return 'mismatch';
  return isStale(signedAt, input.now) ? 'stale' : 'ok';
};

/**
 * GitHub-style `sha256=<hex>` / `sha1=<hex>` over the raw body (Jira, Zammad). These schemes carry
 * no timestamp, so a captured post could be replayed; replay protection rests on the URL's secret
 * staying secret.
 */
const checkHub = (input: InboundAuthInput, algorithm: 'sha256' | 'sha1'): AuthOutcome => {
  if (!input.secret) return 'mismatch';
  const names = algorithm === 'sha256' ? ['x-hub-signature-256', 'x-hub-signature'] : ['x-hub-signature'];
  const prefix = `${algorithm}=`;
  const given = names
    .map((name) => headerOf(input.headers, name)?.trim())
    .filter((value): value is string => value !== undefined && value.toLowerCase().startsWith(prefix))
    .map((value) => value.slice(prefix.length).toLowerCase());
  if (given.length === 0) return 'missing';
  const expected = hmac(algorithm, input.secret, '', input.rawBody).digest('hex');
  return given.map((signature) => sameText(signature, expected)).includes(true) ? 'ok' : 'mismatch';
};

/** Where each signing mode's signature is read: the one header a sender must add. */
const SIGNATURE_HEADERS: Partial<Record<InboundAuthMode, string>> = {
  hmac: 'X-Service-Signature',
  zendesk: 'X-Zendesk-Webhook-Signature',
  // Jira sends sha256 under X-Hub-Signature (X-Hub-Signature-256, GitHub's, is read too).
  'hub-sha256': 'X-Hub-Signature',
  'hub-sha1': 'X-Hub-Signature',
};

/**
 * Whether the mode signs the post: then only its body is signed, so nothing outside the body (its
 * query string) may be read as the post's fields, or anyone holding one signed post could resend
 * it with other fields in the URL.
 */
export const signsTheBody = (mode: InboundAuthMode) => SIGNATURE_HEADERS[mode] !== undefined;

/** The realm of every inbound challenge: the integration's URLs, not the API keys' `/v1`. */
export const INBOUND_REALM = 'inbound';

/**
 * The challenge a 401 of an inbound URL carries (RFC 9110 requires one on every 401). No scheme is
 * registered for either check, so each is named for what it asks: `SharedHeader` (whose name is
 * not said: it is part of what the sender must know) or `Signature` with the header it is read
 * from, which the helpdesk's own documentation names anyway.
 */
export const inboundChallenge = (mode: InboundAuthMode) => {
  const signatureHeader = SIGNATURE_HEADERS[mode];
  return signatureHeader ? `Signature realm="${INBOUND_REALM}", header="${signatureHeader}"` : `SharedHeader realm="${INBOUND_REALM}"`;
};

export const checkInboundAuth = (input: InboundAuthInput): AuthOutcome => {
  try {
    switch (input.mode) {
      case 'none':
        return 'ok';
      case 'header':
        return checkHeader(input);
      case 'hmac':
        return checkServiceHmac(input);
      case 'zendesk':
        return checkZendesk(input);
      case 'hub-sha256':
        return checkHub(input, 'sha256');
      case 'hub-sha1':
        return checkHub(input, 'sha1');
      default:
        // A mode this code does not know (a newer configuration) must not let posts through.
        return 'mismatch';
    }
  } catch {
    return 'mismatch';
  }
};
