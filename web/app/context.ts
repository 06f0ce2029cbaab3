/**
 * What a page module of the member application gets from web/app/main.ts: the session's calls
 * (POSTs carry the CSRF token), navigation and re-rendering. Page modules import this type only,
 * never main.ts, so there is no import cycle.
 */
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
  member(): { membership_id: string; name: string | null; email: string | null; role: string } | null;
}
