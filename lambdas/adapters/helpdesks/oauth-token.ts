import { systemClock, type Clock } from '#core/clock.ts';
import { HelpdeskCallFailed } from '#core/helpdesk.ts';
import type { BearerTokens, HelpdeskCall, HelpdeskHttp } from './helpdesk-http.ts';

/**
 * OAuth 2.0 client-credentials access tokens for a helpdesk adapter, cached in memory: one token
 * request per token lifetime and Lambda instance, not one per call, which keeps well inside the
 * helpdesk's rate limits and does not mint a token per ticket.
 *
 * The token lives in a private field (`#`), which neither JSON.stringify nor util.inspect shows, so
 * logging an adapter cannot print it; nothing here logs.
 */

export interface IssuedToken {
  accessToken: string;
  /** The token's lifetime from the token answer's `expires_in`; null when the helpdesk gave none. */
  expiresInSeconds: number | null;
}

/** Requests a new token from the helpdesk's token URL. */
export type TokenSource = () => Promise<IssuedToken>;

/** The most a token is refreshed before its expiry, so a call started just before it does not carry a dead token. */
const DEFAULT_REFRESH_MARGIN_SECONDS = 60;

export class OAuthTokenCache implements BearerTokens {
  #cached: { token: string; refreshAtMs: number | null } | null = null;
  #pending: Promise<string> | null = null;

  constructor(
    private readonly source: TokenSource,
    private readonly clock: Clock = systemClock,
    private readonly refreshMarginSeconds = DEFAULT_REFRESH_MARGIN_SECONDS,
  ) {}

  async get(): Promise<string> {
    const cached = this.#cached;
    if (cached && (cached.refreshAtMs === null || this.clock.now().getTime() < cached.refreshAtMs)) return cached.token;
    // Calls that find no fresh token at the same time share one token request.
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  refused(token: string): void {
    if (this.#cached?.token === token) this.#cached = null;
  }

  async #fetch(): Promise<string> {
    // Lifetime counts from before the request: the helpdesk started it somewhere in between.
    const requestedAt = this.clock.now().getTime();
    const issued = await this.source();
    this.#cached = {
      token: issued.accessToken,
      // No expires_in: the token does not expire by time (Zendesk clients made before 30 April 2026),
      // so it is kept until the helpdesk refuses it; fetching new ones would only pile up live tokens.
      refreshAtMs: issued.expiresInSeconds === null ? null : requestedAt + refreshDelaySeconds(issued.expiresInSeconds, this.refreshMarginSeconds) * 1000,
    };
    return issued.accessToken;
  }
}

/** When to refresh: `margin` before expiry, but never more than a tenth of a short lifetime. */
const refreshDelaySeconds = (expiresIn: number, margin: number) => Math.max(0, expiresIn - Math.min(margin, expiresIn / 10));

/**
 * Requests a token with `call` (the vendor's token URL and body) and reads the answer (RFC 6749
 * §5.1). A token request refused with 400 (`invalid_client`, `invalid_grant`, `invalid_scope`,
 * RFC 6749 §5.2) is `unauthorized`, as a 401 is: the integration's credentials need fixing.
 */
export const requestToken = async (http: HelpdeskHttp, call: HelpdeskCall): Promise<IssuedToken> => {
  let body: unknown;
  try {
    ({ body } = await http.send(call));
  } catch (error) {
    if (error instanceof HelpdeskCallFailed && error.status === 400) throw new HelpdeskCallFailed('unauthorized', call.call, { status: 400 });
    throw error;
  }
  const answer = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { access_token: accessToken, expires_in: expiresIn, token_type: tokenType } = answer;
  const readable =
    typeof accessToken === 'string' &&
    accessToken.length > 0 &&
    (expiresIn === undefined || expiresIn === null || (typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn >= 0)) &&
    // A token of another type (mac, DPoP) cannot be sent as a bearer token.
    (tokenType === undefined || (typeof tokenType === 'string' && tokenType.toLowerCase() === 'bearer'));
  if (!readable) throw new HelpdeskCallFailed('unexpected_answer', call.call);
  return { accessToken, expiresInSeconds: typeof expiresIn === 'number' ? expiresIn : null };
};
