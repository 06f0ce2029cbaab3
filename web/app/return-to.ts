/// <reference lib="dom" />
/**
 * Where a signed-out member was going (a ticket's deep link to /app/requests/new?ticket=…, say),
 * kept across the sign-in: the emailed link often opens in another tab, so it is kept in
 * localStorage, for as long as a sign-in link is valid, and used once.
 */
const KEY = 'handoff.returnTo';
const VALID_MS = 15 * 60 * 1000;

/** Only the application's own pages, never the sign-in page itself: nothing else can be sent back to. */
const isAppPath = (path: string) => /^\/app(\/|$)/.test(path) && !/^\/app\/sign-in/.test(path) && !path.startsWith('//');

export const rememberReturn = (path: string) => {
  try {
    if (isAppPath(path) && path !== '/app' && path !== '/app/') localStorage.setItem(KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // Storage refused (a private window): the member lands on My requests instead.
  }
};

/** The remembered page, once; '/app' when there is none or it is too old. */
export const takeReturn = (): string => {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { path?: unknown; at?: unknown } | null;
    localStorage.removeItem(KEY);
    if (stored && typeof stored.path === 'string' && typeof stored.at === 'number' && Date.now() - stored.at < VALID_MS && isAppPath(stored.path)) return stored.path;
  } catch {
    // Nothing usable was stored.
  }
  return '/app';
};
