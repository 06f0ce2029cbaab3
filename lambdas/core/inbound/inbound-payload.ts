import { readPath } from './dotted-path.ts';

/**
 * Turns what an inbound webhook post carried into one flat bag of fields (SPEC.md, Inbound
 * generic ticket webhook: "JSON is expected; form-encoded bodies and query-string parameters
 * are also read"). Nothing here throws: an unreadable body becomes a `problem` the integration's
 * activity view shows, and the query-string fields are still returned.
 */
export interface InboundPayloadInput {
  body: string;
  contentType: string | undefined;
  query: Record<string, string | undefined>;
}

export interface InboundPayload {
  /** Own keys only, on an object without a prototype, so no key of the sender's reaches one. */
  fields: Record<string, unknown>;
  problem: string | null;
}

const NOT_JSON = 'The body is not valid JSON.';
const NOT_OBJECT = 'The body is not a JSON object.';

const emptyFields = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `application/json; charset=utf-8` → `application/json`; blank → null. */
const mediaTypeOf = (contentType: string | undefined) => {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return type === '' ? null : type;
};

const isJsonType = (type: string) => type === 'application/json' || type.endsWith('+json');

type JsonRead = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

const readJson = (body: string): JsonRead => {
  let parsed: unknown;
  try {
    // Some senders prefix a byte-order mark, which JSON.parse refuses.
    parsed = JSON.parse(body.replace(/^\uFEFF/, ''));
  } catch {
    return { ok: false, problem: NOT_JSON };
  }
  // JSON.parse makes `__proto__` an ordinary own data property, so copying own keys is safe.
  return isRecord(parsed) ? { ok: true, value: parsed } : { ok: false, problem: NOT_OBJECT };
};

const copyOwn = (target: Record<string, unknown>, source: Record<string, unknown>) => {
  for (const key of Object.keys(source)) target[key] = source[key];
};

export const readInboundPayload = (input: InboundPayloadInput): InboundPayload => {
  const { fields: bodyFields, problem } = readBody(input);
  const fields = emptyFields();
  // Body fields win over query fields: a query field is read only where the body has nothing at
  // its path, dotted names included (a query `issue.key` never overrides the body's issue.key).
  for (const key of Object.keys(input.query)) {
    const value = input.query[key];
    if (value !== undefined && readPath(bodyFields, key) === undefined) fields[key] = value;
  }
  copyOwn(fields, bodyFields);
  // Some helpdesks label JSON as text/plain. Any other text (a notification's prose) carries no
  // fields: a post whose query string carries them is read from it alone, as SPEC.md reads
  // query-string parameters.
  if (problem === UNSUPPORTED && Object.keys(fields).length > 0) return { fields, problem: null };
  return { fields, problem: problem === UNSUPPORTED ? `Unsupported content type ${mediaTypeOf(input.contentType)}.` : problem };
};

const UNSUPPORTED = Symbol('unsupported content type');

/** The body's own fields, or why it has none. */
const readBody = (input: InboundPayloadInput): { fields: Record<string, unknown>; problem: string | typeof UNSUPPORTED | null } => {
  const fields = emptyFields();
  const body = input.body;
  if (body.trim() === '') return { fields, problem: null };
  const type = mediaTypeOf(input.contentType);
  // A JSON object is read as JSON whatever the Content-Type says. The header is not signed, so it
  // must not choose how signed bytes are read: a JSON body resent as a form would be split at every
  // `&` in its text (a ticket comment's `&ticket_id=…&status=closed`). No form body is a JSON object.
  const read = readJson(body);
  if (read.ok) {
    copyOwn(fields, read.value);
    return { fields, problem: null };
  }
  if (type === 'application/x-www-form-urlencoded') {
    // Iterating in order makes the last of repeated keys win.
    for (const [key, value] of new URLSearchParams(body)) fields[key] = value;
    return { fields, problem: null };
  }
  // Without a content type the body is taken as the JSON SPEC.md expects.
  return { fields, problem: type === null || isJsonType(type) ? read.problem : UNSUPPORTED };
};
