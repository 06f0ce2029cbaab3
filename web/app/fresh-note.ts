/// <reference lib="dom" />
/**
 * A short note kept in localStorage for as long as a sign-in link is valid (15 minutes) and read
 * once: what this browser was doing when it asked for a sign-in link, for the tab the emailed link
 * opens in. A refused storage (a private window) keeps nothing.
 */
const VALID_MS = 15 * 60 * 1000;

export const keepNote = (key: string, value: string) => {
  try {
    localStorage.setItem(key, JSON.stringify({ value, at: Date.now() }));
  } catch {
    // Nothing kept: the reader of the note does without it.
  }
};

/** The note, once (it is removed); null when there is none or it is too old. */
export const takeNote = (key: string): string | null => {
  try {
    const stored = JSON.parse(localStorage.getItem(key) ?? 'null') as { value?: unknown; at?: unknown } | null;
    localStorage.removeItem(key);
    if (stored && typeof stored.value === 'string' && typeof stored.at === 'number' && Date.now() - stored.at < VALID_MS) return stored.value;
  } catch {
    // Nothing usable was stored.
  }
  return null;
};
