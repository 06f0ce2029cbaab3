/**
 * Finds secrets stored in plain text in table items: by their known formats, and by the values the
 * tests were shown (recorded while the suite runs, see shown-secrets.ts), which no format can
 * recognise (a six-digit code, an integration's header value).
 */

/** Formats a secret of this service has wherever it appears. */
export const SECRET_FORMATS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'API key', pattern: /chs_live_[A-Za-z0-9_-]{43}/ },
  { name: 'webhook signing secret', pattern: /whsec_[A-Za-z0-9+/]{20,}/ },
  { name: 'subject link token', pattern: /\/r\/[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/ },
  { name: 'share link token', pattern: /\/s\/[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/ },
  { name: 'inbound URL secret', pattern: /\/inbound\/ticket-(?:status|trigger)\/[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/ },
  { name: 'sign-in token', pattern: /sign-in#token=[A-Za-z0-9_-]{43}/ },
];

/** Answer fields that hold a secret shown once (the create answers' secretFields, the session's CSRF token, the CLI's inbound URLs). */
export const SECRET_FIELDS = new Set(['secret', 'token', 'link', 'link_without_fragment', 'challenge_code', 'email_code', 'csrf_token', 'subject_pass', 'webhook_url', 'trigger_url', 'api_key']);

/** A six-digit code, or a value long enough not to turn up by chance; anything else shown is no secret. */
const SIX_DIGITS = /^[0-9]{6}$/;
const MIN_SECRET_LENGTH = 12;
/**
 * A part of a URL counts from this length: the service's URL secrets are 43 characters, while the
 * ids in its other links (26-character ULIDs, `/v1/requests/<id>`) are stored in the clear by design.
 */
const MIN_URL_PART_LENGTH = 32;

const isWorthRecording = (value: string) => SIX_DIGITS.test(value) || value.length >= MIN_SECRET_LENGTH;

/**
 * The secret parts of a value shown in a secret field: the value itself, and for a URL its path
 * segments and query values and any `name=value` in its fragment (the sign-in link's token). A
 * bare fragment is the request's recipient commitment, which is public and stored by design.
 */
export const secretPartsOf = (value: string): string[] => {
  const parts = new Set<string>();
  let url: URL | null = null;
  try {
    url = /^https?:\/\//.test(value) ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url) {
    if (isWorthRecording(value)) parts.add(value);
    return [...parts];
  }
  for (const segment of url.pathname.split('/')) if (segment.length >= MIN_URL_PART_LENGTH) parts.add(decodeURIComponent(segment));
  for (const [, query] of url.searchParams) if (query.length >= MIN_URL_PART_LENGTH) parts.add(query);
  for (const [, fragmentValue] of new URLSearchParams(url.hash.slice(1))) if (fragmentValue.length >= MIN_URL_PART_LENGTH && url.hash.includes('=')) parts.add(fragmentValue);
  return [...parts];
};

/** Every secret shown in an answer (parsed JSON): the values of SECRET_FIELDS at any depth. */
export const secretsShownIn = (answer: unknown): string[] => {
  const found: string[] = [];
  const walk = (value: unknown, field: string | null) => {
    if (typeof value === 'string') {
      if (field !== null && SECRET_FIELDS.has(field)) found.push(...secretPartsOf(value));
    } else if (Array.isArray(value)) {
      for (const element of value) walk(element, field);
    } else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) {
        // A validation error's `errors` are messages keyed by the field they are about ("token": ["Unknown field."]), never values.
        if (name === 'errors') continue;
        walk(inner, name);
      }
    }
  };
  walk(answer, null);
  return found;
};

/** The secrets in an email or SMS the service sent: its links' tokens and any six-digit code. */
export const secretsInMessage = (text: string): string[] => {
  const found = new Set<string>();
  for (const [url] of text.matchAll(/https?:\/\/[^\s"'<>]+/g)) for (const part of secretPartsOf(url)) found.add(part);
  // A code stands alone: six digits inside a word (an id in a link, base32 with digits) are not one.
  for (const [code] of text.matchAll(/(?<![0-9A-Za-z])[0-9]{6}(?![0-9A-Za-z])/g)) found.add(code);
  return [...found];
};

/** The cookie values a `Set-Cookie` header list sets (the member session's token). */
export const cookieSecrets = (setCookies: readonly string[]): string[] =>
  setCookies.map((cookie) => cookie.split(';')[0]!.split('=').slice(1).join('=')).filter((value) => value.length >= MIN_SECRET_LENGTH);

const TOKEN_SPLIT = /[^A-Za-z0-9]+/;
/** Long values are looked up by a prefix of this many characters at every position of a stored string. */
const PREFIX = 8;

/**
 * The recorded values, ready to look for in stored strings. A long value is found anywhere inside
 * a string; a short one (a six-digit code) only as a whole token, since six given digits turn up
 * inside hex digests and ciphertext by chance.
 */
export class ShownSecrets {
  private readonly short = new Set<string>();
  private readonly byPrefix = new Map<string, string[]>();

  constructor(values: Iterable<string>) {
    for (const value of values) {
      if (value.length < PREFIX || SIX_DIGITS.test(value)) this.short.add(value);
      else {
        const key = value.slice(0, PREFIX);
        const list = this.byPrefix.get(key) ?? [];
        if (!list.includes(value)) list.push(value);
        this.byPrefix.set(key, list);
      }
    }
  }

  get size() {
    return this.short.size + [...this.byPrefix.values()].reduce((sum, list) => sum + list.length, 0);
  }

  /** The first recorded value `text` holds, or null. */
  foundIn(text: string): string | null {
    if (this.short.size > 0) {
      if (this.short.has(text)) return text;
      for (const token of text.split(TOKEN_SPLIT)) if (this.short.has(token)) return token;
    }
    if (this.byPrefix.size > 0) {
      for (let at = 0; at + PREFIX <= text.length; at++) {
        const candidates = this.byPrefix.get(text.slice(at, at + PREFIX));
        if (!candidates) continue;
        for (const candidate of candidates) if (text.startsWith(candidate, at)) return candidate;
      }
    }
    return null;
  }
}

export interface PlainSecretFinding {
  table: string;
  key: string;
  kind: string;
  /** Where in the item: `secrets[0].secret`, `data.details.note`, ... */
  path: string;
  /** Which format, or that it is a value a test was shown. */
  what: string;
  /** The secret, masked: enough to recognise it in the test that made it, not to use it. */
  masked: string;
}

export const mask = (secret: string) => (secret.length <= 8 ? `${secret.slice(0, 2)}…` : `${secret.slice(0, 6)}…(${secret.length} chars)`);

/** Every string in an item (map keys too), with its path; binary values are skipped. */
const stringsOf = function* (value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (value instanceof Set) {
    let index = 0;
    for (const element of value) yield* stringsOf(element, `${path}<${index++}>`);
  } else if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) yield* stringsOf(element, `${path}[${index}]`);
  } else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const [name, inner] of Object.entries(value)) {
      yield [`${path}{key}`, name];
      yield* stringsOf(inner, path ? `${path}.${name}` : name);
    }
  }
};

/** The plain secrets in the items of one table. */
export const plainSecretsIn = (table: string, items: Iterable<Record<string, unknown>>, shown: ShownSecrets): PlainSecretFinding[] => {
  const findings: PlainSecretFinding[] = [];
  for (const item of items) {
    const where = { table, key: `${String(item.pk)} / ${String(item.sk)}`, kind: String(item.kind ?? '?') };
    for (const [path, text] of stringsOf(item, '')) {
      const format = SECRET_FORMATS.find(({ pattern }) => pattern.test(text));
      if (format) {
        findings.push({ ...where, path, what: format.name, masked: mask(format.pattern.exec(text)![0]) });
        continue;
      }
      const value = shown.foundIn(text);
      if (value !== null) findings.push({ ...where, path, what: 'a secret value a test was shown', masked: mask(value) });
    }
  }
  return findings;
};

export const describeFindings = (findings: readonly PlainSecretFinding[]) =>
  findings.map((f) => `  ${f.table}: ${f.kind} item ${f.key}, at ${f.path || '(item)'}: ${f.what} in plain text (${f.masked})`).join('\n');
