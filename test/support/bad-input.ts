/**
 * Generated bad input for the property-based suites (test/e2e/bad-input-*.property.test.ts): bodies,
 * queries, paths and headers of every shape, sent over real HTTP with exactly the bytes and the
 * repeated headers generated (node:http, not fetch, which would merge, normalise or refuse them),
 * and the checks every answer must pass.
 */
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Route } from '../../lambdas/http/routes.ts';
import { expectServiceVoice } from './service-voice.ts';

/** Names an object inherits: a body or query field named so once reached a prototype. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
  'toJSON',
  'then',
  'length',
] as const;

/**
 * The seed of every property, fixed so a run is repeatable; another can be tried with
 * BAD_INPUT_SEED=<n>. fast-check names the seed and the path of a failure in its message.
 */
export const SEED = Number(process.env.BAD_INPUT_SEED ?? 20261123);

/** `numRuns` generated runs after the `examples` (fast-check counts examples among its runs). */
export const propertyOptions = <T extends unknown[]>(numRuns: number, examples: T[] = []) => ({ seed: SEED, numRuns: numRuns + examples.length, examples, endOnFailure: true });

// ---------------------------------------------------------------------------------------------
// JSON text, built as text so it can carry what JSON.stringify never writes: numbers that
// overflow (1e999), escapes of lone surrogates, keys named like prototype members, any depth.

/** A JSON value as text; objects are pairs, so a key such as `__proto__` is just a key. */
export type JsonText = string;

const keyOf = (key: string) => JSON.stringify(key);
export const objectText = (pairs: ReadonlyArray<readonly [string, JsonText]>) => `{${pairs.map(([key, value]) => `${keyOf(key)}:${value}`).join(',')}}`;
export const arrayText = (items: readonly JsonText[]) => `[${items.join(',')}]`;
/** A plain value as JSON text (the templates below). */
export const asText = (value: unknown): JsonText => JSON.stringify(value);

const numberText: fc.Arbitrary<JsonText> = fc.oneof(
  fc.constantFrom('1e999', '-1e999', '1E400', '1e-999', '-0', '0e0', '123456789012345678901234567890', '9007199254740993', '-9007199254740993', '1.7976931348623159e308', '5e-324'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
);

const stringText: fc.Arbitrary<JsonText> = fc.oneof(
  // `binary` units include lone surrogates; JSON.stringify writes them as \udxxx escapes.
  fc.string({ unit: 'binary', maxLength: 40 }).map((text) => JSON.stringify(text)),
  fc.constantFrom('"\\ud800"', '"\\udfff"', '"name \\ud83d"', '"\\ude00 x"', '"\\u0000"', '"\\ud83d\\ude00"', '""', '" "', '"a@b.c"'),
  fc.string({ maxLength: 1500 }).map((text) => JSON.stringify(text)),
);

const keyText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

const scalarText: fc.Arbitrary<JsonText> = fc.oneof(numberText, stringText, fc.constantFrom('true', 'false', 'null'));

/** Any JSON value, a few levels deep, with prototype-named keys and non-finite-looking numbers. */
export const jsonValueText: fc.Arbitrary<JsonText> = fc.letrec<{ value: JsonText }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarText,
    fc.array(tie('value'), { maxLength: 5 }).map(arrayText),
    fc.array(fc.tuple(keyText, tie('value')), { maxLength: 5 }).map(objectText),
  ),
})).value;

/** Nesting far past any body's: arrays, objects, or a mix, up to thousands of levels. */
export const deepText: fc.Arbitrary<JsonText> = fc
  .tuple(fc.integer({ min: 20, max: 6000 }), fc.constantFrom('array', 'object', 'mixed'), scalarText)
  .map(([depth, kind, leaf]) => {
    if (kind === 'array') return `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
    if (kind === 'object') return `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
    let open = '';
    let close = '';
    for (let level = 0; level < depth; level += 1) {
      if (level % 2) {
        open += '{"__proto__":';
        close = `}${close}`;
      } else {
        open += '[';
        close = `]${close}`;
      }
    }
    return `${open}${leaf}${close}`;
  });

/** Every path into a plain JSON value: object keys and array indexes, outermost first. */
const pathsOf = (value: unknown, at: string[] = []): string[][] => {
  if (value === null || typeof value !== 'object') return [at];
  const children = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  return [at, ...children.flatMap(([key, item]) => pathsOf(item, [...at, key]))];
};

/** `value` as JSON text with the value at `path` replaced by `replacement` (or left out when null). */
const textWith = (value: unknown, path: string[], replacement: JsonText | null): JsonText | null => {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const items = value.map((item, index) => (String(index) === head ? textWith(item, rest, replacement) : asText(item)));
    return arrayText(items.filter((item): item is JsonText => item !== null));
  }
  const record = (value ?? {}) as Record<string, unknown>;
  const pairs: Array<[string, JsonText]> = [];
  for (const [key, item] of Object.entries(record)) {
    const text = key === head ? textWith(item, rest, replacement) : asText(item);
    if (text !== null) pairs.push([key, text]);
  }
  if (!Object.hasOwn(record, head) && replacement !== null) pairs.push([head, rest.length ? textWith({}, rest, replacement)! : replacement]);
  return objectText(pairs);
};

/**
 * A JSON body template (a valid body of the route) with one value anywhere in it (a nested one
 * too) replaced by any JSON, removed, or joined by a field named like a prototype member.
 */
export const mutatedTemplate = (template: Record<string, unknown>): fc.Arbitrary<JsonText> => {
  const paths = pathsOf(template).filter((path) => path.length > 0);
  const somePath = paths.length ? fc.constantFrom(...paths) : fc.constant<string[]>([]);
  const valueAt = (path: string[]) => path.reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], template);
  const stringPaths = paths.filter((path) => typeof valueAt(path) === 'string');
  const parentOf = (path: string[]) => path.slice(0, -1);
  return fc.oneof(
    fc.constant(asText(template)),
    // Text is where most of a body's trouble lives: any string of the template, replaced by odd text.
    ...(stringPaths.length ? [fc.tuple(fc.constantFrom(...stringPaths), stringText).map(([path, value]) => textWith(template, path, value)!)] : []),
    fc.tuple(somePath, fc.oneof({ weight: 3, arbitrary: jsonValueText }, { weight: 1, arbitrary: deepText })).map(([path, value]) => textWith(template, path, value)!),
    fc.tuple(somePath, fc.constantFrom(...PROTOTYPE_NAMES), jsonValueText).map(([path, field, value]) => textWith(template, [...parentOf(path), field], value)!),
    somePath.map((path) => textWith(template, path, null) ?? '{}'),
  );
};

/** A body as bytes: none, JSON of any shape, deep, non-JSON text, random or ill-formed UTF-8 bytes. */
export const bodyBytes = (template: Record<string, unknown> | null): fc.Arbitrary<Buffer | null> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 5, arbitrary: (template ? mutatedTemplate(template) : jsonValueText).map((text) => Buffer.from(text, 'utf8')) },
    { weight: 2, arbitrary: jsonValueText.map((text) => Buffer.from(text, 'utf8')) },
    { weight: 1, arbitrary: deepText.map((text) => Buffer.from(text, 'utf8')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((text) => Buffer.from(text, 'utf8')) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
    {
      // A lone surrogate as raw text: its CESU-8 bytes, which are not UTF-8, inside a JSON string.
      weight: 1,
      arbitrary: fc.constantFrom('subject_name', 'email', 'reason', 'token', 'label', '__proto__').map((field) =>
        Buffer.concat([Buffer.from(`{"${field}":"x`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('y"}')]),
      ),
    },
  );

// ---------------------------------------------------------------------------------------------
// Queries, paths and headers.

const RAW_ESCAPES = ['%', '%z', '%zz', '%ED%A0%80', '%C0%AF', '%00', '%2F', '%2e%2e', '%FF', '+', '%2B', '&&', '=', '==', '%25'];

const queryPart: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(...RAW_ESCAPES),
  fc.constantFrom(...PROTOTYPE_NAMES).map(encodeURIComponent),
  fc.integer({ min: 0, max: 3000 }).map((length) => 'q'.repeat(length)),
  numberText.map(encodeURIComponent),
);

/** A query string: the route's own names and prototype names, repeated keys, odd escapes, long values. */
export const queryString = (names: readonly string[], values: readonly string[]): fc.Arbitrary<string> => {
  const name = fc.oneof(names.length ? fc.constantFrom(...names) : queryPart, fc.constantFrom(...PROTOTYPE_NAMES), queryPart);
  const value = fc.oneof(values.length ? fc.constantFrom(...values).map(encodeURIComponent) : queryPart, queryPart);
  return fc.array(fc.tuple(name, value, fc.boolean()), { maxLength: 6 }).map((pairs) =>
    pairs.map(([key, item, withValue]) => (withValue ? `${key}=${item}` : key)).join('&'),
  );
};

/** A path segment in place of a path parameter: well-formed, random, encoded slashes, dot segments, long. */
export const pathSegment = (real: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: real.length ? fc.constantFrom(...real) : fc.ulid().map((id) => id.toLowerCase()) },
    { weight: 1, arbitrary: fc.ulid().map((id) => id.toLowerCase()) },
    { weight: 1, arbitrary: fc.ulid() },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2F', 'a%2Fb', '..%2F..%2Fv1', '%', '%zz', '%00', '%ED%A0%80', '__proto__', 'constructor', '%20') },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 2500 }).map((length) => 'p'.repeat(length)) },
  );

/** The route's path with each parameter replaced; `{path+}` takes one to three segments. */
export const routePath = (route: Route, params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> => {
  const parts = route.path.split(/(\{\w+\+?\})/).filter((part) => part !== '');
  return fc
    .tuple(
      ...parts.map((part) => {
        const parameter = /^\{(\w+)(\+?)\}$/.exec(part);
        if (!parameter) return fc.constant(part);
        const segment = params[parameter[1]] ?? pathSegment([]);
        return parameter[2] ? fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/')) : segment;
      }),
    )
    .map((pieces) => pieces.join(''));
};

/** Header values a client can send (HTTP allows visible ASCII and spaces; Node refuses the rest). */
const headerValue = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength });

export type HeaderList = Array<[string, string]>;

/**
 * Headers beside the route's credential: odd or repeated Content-Type, Idempotency-Keys of any
 * length (repeated too), prototype-named header names, and values long enough to pass API
 * Gateway's 10,240-byte quota on the request line and header values.
 */
export const extraHeaders: fc.Arbitrary<HeaderList> = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant('Content-Type'), fc.oneof(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '*/*', ';', ''), headerValue(60))),
      fc.tuple(fc.constant('Idempotency-Key'), fc.oneof(headerValue(30), fc.integer({ min: 0, max: 260 }).map((length) => 'k'.repeat(length)))),
      fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES.filter((name) => /^[A-Za-z_]+$/.test(name))), headerValue(20)),
      fc.tuple(fc.constantFrom('X-Padding', 'User-Agent', 'Accept', 'X-Forwarded-For', 'Origin', 'Sec-Fetch-Site'), headerValue(40)),
      fc.tuple(fc.constant('X-Padding'), fc.integer({ min: 1000, max: 12_000 }).map((length) => 'h'.repeat(length))),
    ),
    { maxLength: 4 },
  );

// ---------------------------------------------------------------------------------------------
// Sending and judging.

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** One request with exactly these bytes and header lines (repeated names stay repeated). */
export const send = (
  origin: string,
  method: string,
  path: string,
  headers: HeaderList,
  body: Buffer | null,
): Promise<RawAnswer> =>
  new Promise((done, fail) => {
    const url = new URL(origin.replace('localhost', '127.0.0.1'));
    const grouped: Record<string, string[]> = Object.create(null);
    for (const [name, value] of headers) (grouped[name] ??= []).push(value);
    // Framed by its length whatever the method: Node sends a GET's or DELETE's body unframed
    // otherwise, and the server reads it as the start of another request.
    if (body && !Object.keys(grouped).some((name) => name.toLowerCase() === 'content-length')) grouped['Content-Length'] = [String(body.length)];
    const request = httpRequest(
      { host: url.hostname, port: Number(url.port), method, path, agent, headers: { ...grouped }, timeout: 30_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', fail);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within 30 s: ${method} ${path.slice(0, 200)}`)));
    request.on('error', fail);
    request.end(body ?? undefined);
  });

const PAGE_ROUTES = new Set(['pageSubject', 'pageShare', 'pageApp', 'pageAppDeep']);

const describeCall = (method: string, path: string, headers: HeaderList, body: Buffer | null) =>
  `${method} ${path.length > 300 ? `${path.slice(0, 300)}… (${path.length} chars)` : path}\n` +
  `headers: ${JSON.stringify(headers.map(([name, value]) => [name, value.length > 80 ? `${value.slice(0, 80)}… (${value.length})` : value]))}\n` +
  `body: ${body === null ? 'none' : JSON.stringify(body.subarray(0, 300).toString('latin1'))}${body && body.length > 300 ? `… (${body.length} bytes)` : ''}`;

/**
 * What every answer must be: never a 5xx; every 4xx SPEC.md's error body (JSON, string `message`
 * and `code`, and `errors` of string arrays on a validation failure, each message in the service's
 * voice); a page HTML on 200; any other JSON answer parses.
 */
export const expectAnswered = (route: Route | null, call: { method: string; path: string; headers: HeaderList; body: Buffer | null }, answer: RawAnswer) => {
  const where = `${route?.name ?? 'no route'}: ${describeCall(call.method, call.path, call.headers, call.body)}\nanswered ${answer.status}: ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeGreaterThanOrEqual(200);
  expect(answer.status, where).toBeLessThan(500);
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status >= 400) {
    expect(type, where).toMatch(/^application\/json/);
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    expect(typeof body.message, where).toBe('string');
    expect(typeof body.code, where).toBe('string');
    if (body.code === 'validation_failed') {
      expect(body.errors !== null && typeof body.errors === 'object', where).toBe(true);
      for (const messages of Object.values(body.errors as object)) {
        expect(Array.isArray(messages) && messages.every((message) => typeof message === 'string'), where).toBe(true);
        expectServiceVoice(messages as string[], where);
      }
    }
    return;
  }
  if (route && PAGE_ROUTES.has(route.name) && answer.status === 200) {
    expect(type, where).toMatch(/^text\/html/);
    return;
  }
  if (type.startsWith('application/json')) expect(() => JSON.parse(answer.text), where).not.toThrow();
};

/** Closes the pooled connections once a file is done. */
export const closeConnections = () => agent.destroy();

/**
 * Writes `request` on a fresh connection exactly as given (it should ask `Connection: close`) and
 * reads the answer to the end. The connection is never half-closed first: a server may drop a
 * request whose client has stopped listening. A reset is an error here, never an answer.
 */
export const sendRaw = (origin: string, request: Buffer | string): Promise<RawAnswer> =>
  new Promise((done, fail) => {
    const url = new URL(origin.replace('localhost', '127.0.0.1'));
    const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', fail);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return fail(new Error(`no HTTP answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`));
      const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      done({ status: Number(statusLine.split(' ')[1]), headers, text: raw.subarray(split + 4).toString('utf8') });
    });
  });
