import { callTimeoutMs } from './call-deadline.ts';
import { systemClock, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed, type HelpdeskFailureReason } from '#core/helpdesk.ts';
import { pinnedFetch } from './pinned-fetch.ts';

/**
 * The one HTTP client of the helpdesk adapters, over a `fetch` that connects only to a public
 * address of the helpdesk (pinned-fetch.ts): JSON in and out (a form
 * body for token requests that take only that), one timeout per call, and every answer that is not
 * a usable 2xx turned into a HelpdeskCallFailed with its reason. It never retries a 429 or a 5xx
 * itself: the callers (verified close, reconciliation, ticket_reply) own the retry schedule and
 * honour Retry-After, and a Lambda must not sleep through a helpdesk's back-off. The only repeat
 * is after a refused bearer token.
 */

export interface HelpdeskCall {
  /** The call's name in errors, for example `Zendesk ShowTicket`: never a URL or a value. */
  call: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** Sent as the JSON body. */
  json?: unknown;
  /**
   * Sent as an `application/x-www-form-urlencoded` body (RFC 6749 §4.4.2 token requests, which some
   * helpdesks take in no other form). Not together with `json`.
   */
  form?: Record<string, string>;
}

export interface HelpdeskAnswer {
  status: number;
  body: unknown;
}

/** Bearer tokens as a call needs them (oauth-token.ts caches them). */
export interface BearerTokens {
  /** A token to send: the cached one while it is fresh, else a new one. */
  get(): Promise<string>;
  /** The helpdesk refused this token (401): forget it, unless a newer one replaced it meanwhile. */
  refused(token: string): void;
}

export interface HelpdeskHttpOptions {
  /** Covers the whole call: connecting, the answer's head and reading its body. */
  timeoutMs?: number;
  /** Largest answer body read: a ticket is a few KB, so more is not a ticket. */
  maxAnswerBytes?: number;
  /** For Retry-After given as an HTTP date. */
  clock?: Clock;
  /** Plain http to 127.0.0.1 (the local runtime and tests only), for the default fetch. */
  allowLoopback?: boolean;
  /** Defaults to pinnedFetch: only a public address of the helpdesk's host, checked as it connects. */
  fetch?: typeof fetch;
}

export const DEFAULT_HELPDESK_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/** The reason an HTTP status stands for; null for a 2xx. */
export const reasonOfStatus = (status: number): HelpdeskFailureReason | null => {
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  // Another 4xx (a 422 on a closed Zendesk ticket, say) or a redirect, which is never followed.
  return 'unexpected_answer';
};

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/i;

/**
 * Retry-After (RFC 9110 §10.2.3) in seconds from `now`: either delta-seconds or an HTTP date (a date
 * in the past is 0). Undefined when absent or unreadable, so a caller falls back to its own backoff.
 */
export const retryAfterSeconds = (value: string | null, now: Date): number | undefined => {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  // Date.parse alone reads "5.5" or "2026" as dates: an HTTP date starts with the day's name.
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
};

const withBearer = (call: HelpdeskCall, token: string): HelpdeskCall => ({
  ...call,
  headers: { ...call.headers, Authorization: `Bearer ${token}` },
});

export class HelpdeskHttp {
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;
  private readonly clock: Clock;
  private readonly fetch: typeof fetch;

  constructor(options: HelpdeskHttpOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HELPDESK_TIMEOUT_MS;
    this.maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.clock = options.clock ?? systemClock;
    this.fetch = options.fetch ?? (pinnedFetch({ allowLoopback: options.allowLoopback }) as typeof fetch);
  }

  /** One call, no retry. Answers a 2xx's status and parsed body; throws HelpdeskCallFailed otherwise. */
  async send(call: HelpdeskCall): Promise<HelpdeskAnswer> {
    const fail = (reason: HelpdeskFailureReason, details?: ConstructorParameters<typeof HelpdeskCallFailed>[2]) =>
      new HelpdeskCallFailed(reason, call.call, details);
    // Within a deadline (call-deadline.ts), a call that could not end by it is not sent at all.
    const timeoutMs = callTimeoutMs(this.timeoutMs);
    if (timeoutMs <= 0) throw fail('timeout');
    const signal = AbortSignal.timeout(timeoutMs);
    const noAnswer = (error: unknown) =>
      // Refused, reset or unresolvable: the helpdesk could not be reached, which a later attempt may mend.
      signal.aborted ? fail('timeout') : fail('unavailable', { cause: error });

    const sent = bodyOf(call);
    let response: Response;
    try {
      response = await this.fetch(call.url, {
        method: call.method,
        headers: {
          Accept: 'application/json',
          ...(sent === undefined ? {} : { 'Content-Type': sent.type }),
          ...call.headers,
        },
        body: sent?.text,
        // A redirect could carry the Authorization header elsewhere; the helpdesk's API does not redirect.
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      throw noAnswer(error);
    }

    const reason = reasonOfStatus(response.status);
    if (reason !== null) {
      // The body of a refusal is never read: it is not needed, and it must not reach a message.
      await response.body?.cancel().catch(() => undefined);
      const wait = reason === 'rate_limited' || reason === 'unavailable' ? retryAfterSeconds(response.headers.get('retry-after'), this.clock.now()) : undefined;
      throw fail(reason, { status: response.status, ...(wait === undefined ? {} : { retryAfterSeconds: wait }) });
    }

    let text: string | null;
    try {
      text = await readCapped(response, this.maxAnswerBytes);
    } catch (error) {
      throw noAnswer(error);
    }
    // A body cut off by the deadline can end as if complete (a tee'd or wrapped stream): it is not an answer.
    if (signal.aborted) throw fail('timeout');
    // Every call's answer is JSON, a write's too: the vendors answer the comment or record they made.
    // A 2xx that is not (a web page, a proxy's, a sign-in page) proves nothing was read or written.
    const body = text === null ? undefined : parseJson(text);
    if (body === undefined) throw fail('unexpected_answer', { status: response.status });
    return { status: response.status, body };
  }

  /**
   * One call with a bearer token. A 401 means the helpdesk refused the token before doing anything
   * (so even a PUT that adds a comment is safe to repeat): the token is dropped and the call made
   * once more with a new one. A 403 is not repeated: a new token carries the same scopes.
   */
  async sendWithToken(call: HelpdeskCall, tokens: BearerTokens): Promise<HelpdeskAnswer> {
    const token = await tokens.get();
    try {
      return await this.send(withBearer(call, token));
    } catch (error) {
      if (!(error instanceof HelpdeskCallFailed) || error.status !== 401) throw error;
      tokens.refused(token);
      return this.send(withBearer(call, await tokens.get()));
    }
  }
}

/**
 * The request body as sent, with its media type. A form is encoded here rather than handed to fetch
 * as URLSearchParams, so the Content-Type is exactly the one named, without fetch's `;charset=UTF-8`.
 */
const bodyOf = (call: HelpdeskCall): { type: string; text: string } | undefined => {
  // Two bodies is a mistake in the adapter, not an answer of the helpdesk: it must not reach one.
  if (call.json !== undefined && call.form !== undefined) throw new TypeError(`${call.call}: a call sends JSON or a form, not both.`);
  if (call.form !== undefined) return { type: 'application/x-www-form-urlencoded', text: new URLSearchParams(call.form).toString() };
  if (call.json !== undefined) return { type: 'application/json', text: JSON.stringify(call.json) };
  return undefined;
};

/** The body as text, or null when it is larger than `max` bytes (then it is not read further). */
const readCapped = async (response: Response, max: number): Promise<string | null> => {
  if (Number(response.headers.get('content-length') ?? 0) > max) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/** A JSON object (not an array, not null): what every adapter reads an answer's fields from. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole number above 0 that JSON carries exactly: the ids (tickets, states, statuses, comments) the adapters read. */
export const isPositiveInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * An id as an answer gives it (a number, or a string that is not empty) as text, for a reply's
 * comment id; undefined for anything else, which a reply that was posted does not fail over.
 */
export const answeredId = (value: unknown): string | undefined =>
  (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length > 0) ? String(value) : undefined;

/** The parsed JSON value, or undefined when the text is not JSON (an HTML error page, an empty body). */
const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};
