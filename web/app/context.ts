/**
 * What a page module of the member application gets from web/app/main.ts: the session, its calls
 * (POSTs carry the CSRF token), navigation and re-rendering. Page modules import this type only,
 * never main.ts, so there is no import cycle.
 */
import type { Me, Member } from './shapes.ts';

export interface RenderOptions {
  focus?: boolean;
  keepMessages?: boolean;
}

export interface AppContext {
  get<T>(path: string): Promise<T>;
  /** A POST with the session's `X-CSRF-Token`, and any extra headers (e.g. `Idempotency-Key`). */
  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  navigate(path: string, options?: RenderOptions & { replace?: boolean }): void;
  /** Renders the current path again. */
  render(options?: RenderOptions): Promise<void>;
  /** The signed-in member, or null on a page that works signed out. */
  member(): Member | null;
  /**
   * The signed-in session, for the pages that need one: the router sends anyone signed out to
   * the sign-in page before such a page is built.
   */
  me(): Me;
  /** Asks for the session again, e.g. once a registered key has changed it. */
  refreshMe(): Promise<Me>;
  /** Keeps the session a sign-in answered, so the POSTs that follow carry its CSRF token. */
  signedIn(me: Me): void;
  /** Owners and admins, who see the Members and API keys pages. */
  isAdmin(): boolean;
  /** An object URL for `blob` (a download link), revoked when the next page is rendered. */
  objectUrl(blob: Blob): string;
}
