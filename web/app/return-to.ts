/// <reference lib="dom" />
/**
 * Where a signed-out member was going (a ticket's deep link to /app/requests/new?ticket=…, say),
 * kept across the sign-in: the emailed link often opens in another tab, so it is kept as a note
 * (fresh-note.ts) and used once.
 */
import { keepNote, takeNote } from './fresh-note.ts';

const KEY = 'handoff.returnTo';

/** Only the application's own pages, never the sign-in page itself: nothing else can be sent back to. */
const isAppPath = (path: string) => /^\/app(\/|$)/.test(path) && !/^\/app\/sign-in/.test(path) && !path.startsWith('//');

export const rememberReturn = (path: string) => {
  if (isAppPath(path) && path !== '/app' && path !== '/app/') keepNote(KEY, path);
};

/** The remembered page, once; '/app' when there is none or it is too old. */
export const takeReturn = (): string => {
  const path = takeNote(KEY);
  return path !== null && isAppPath(path) ? path : '/app';
};
