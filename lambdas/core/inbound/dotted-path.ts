/**
 * Reads values out of an inbound webhook body by the dotted paths an integration is configured
 * with (SPEC.md, Inbound generic ticket webhook: "nesting by dots"). The body is untrusted, so
 * the walk never throws and only ever follows a value's own keys: `constructor`, `__proto__` or
 * `toString` lead nowhere unless the sender literally sent them as data.
 */
export const MAX_PATH_LENGTH = 200;
export const MAX_PATH_SEGMENTS = 32;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * ConnectWise and others nest a whole JSON document inside a string field. Only strings that
 * look like an object or array are tried; a malformed one leads nowhere.
 */
const parseEmbedded = (text: string): unknown => {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
};

/**
 * The next segment of `path` from `start`: either `[digits]` or the text up to the next `.` or
 * `[`. Returns null when the path is malformed there (an empty segment, an unclosed bracket).
 */
const nextSegment = (path: string, start: number): { segment: string; rest: number } | null => {
  if (path[start] === '[') {
    const close = path.indexOf(']', start);
    const segment = close < 0 ? '' : path.slice(start + 1, close);
    if (!/^\d+$/.test(segment)) return null;
    let rest = close + 1;
    if (path[rest] === '.') rest += 1;
    else if (rest < path.length && path[rest] !== '[') return null;
    return rest === path.length && path[rest - 1] === '.' ? null : { segment, rest };
  }
  let end = start;
  while (end < path.length && path[end] !== '.' && path[end] !== '[') end += 1;
  if (end === start) return null;
  const segment = path.slice(start, end);
  const rest = path[end] === '.' ? end + 1 : end;
  // A trailing dot (`a.`) names an empty last segment: malformed.
  if (rest === path.length && path[end] === '.') return null;
  return { segment, rest };
};

const step = (value: unknown, segment: string): unknown => {
  if (Array.isArray(value)) {
    if (!/^\d+$/.test(segment)) return undefined;
    const index = Number(segment);
    return Number.isSafeInteger(index) && Object.hasOwn(value, index) ? value[index] : undefined;
  }
  if (isRecord(value)) return Object.hasOwn(value, segment) ? value[segment] : undefined;
  return undefined;
};

/**
 * The value at `path` (`ticket.id`, `items.0.id`, `items[0].id`), or undefined when the path
 * leads nowhere or is malformed or too long or deep.
 */
export const readPath = (payload: unknown, path: string): unknown => {
  if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH_LENGTH) return undefined;
  let value = payload;
  let position = 0;
  for (let depth = 0; position < path.length; depth += 1) {
    if (depth >= MAX_PATH_SEGMENTS) return undefined;
    if (typeof value === 'string') value = parseEmbedded(value);
    // Form-encoded bodies carry flat keys such as `subject.name`: the whole remaining path as
    // one key wins over walking into it.
    const remaining = path.slice(position);
    if (isRecord(value) && Object.hasOwn(value, remaining)) return value[remaining];
    const next = nextSegment(path, position);
    if (next === null) return undefined;
    value = step(value, next.segment);
    if (value === undefined) return undefined;
    position = next.rest;
  }
  return value;
};

/** A value that says nothing: absent, null, or blank text. */
const isAbsent = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** The first of `paths` that holds a value, and that value; null when none does. */
export const firstPresent = (payload: unknown, paths: readonly string[]): { path: string; value: unknown } | null => {
  for (const path of paths) {
    const value = readPath(payload, path);
    if (!isAbsent(value)) return { path, value };
  }
  return null;
};
