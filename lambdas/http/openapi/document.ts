import type { $ZodType } from 'zod/v4/core';
import { EVENT_TYPES } from '#core/events.ts';
import { MAX_FIELDS_NAMED } from '#core/errors.ts';
import { ID_PATTERN } from '#core/ids.ts';
import { INBOUND_REALM } from '#core/inbound/auth-check.ts';
import { RETRY_DELAYS_SECONDS, RETRY_SPAN_SECONDS, USER_AGENT } from '#workers/deliver.ts';
import { BEARER_REALM } from '../middleware/authenticate.ts';
import { MAX_KEY_LENGTH } from '../middleware/idempotency.ts';
import { UNKNOWN_QUERY_PARAMETER } from '../query-rule.ts';
import { MAX_BODY_BYTES, MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES } from '../request-limits.ts';
import { routeList, type Route } from '../routes.ts';
import { componentSchemas, inputSchema, queryFields, refTo, type JsonSchema } from './json-schema.ts';
import { eventObject, errorBody } from './objects.ts';
import { ERROR_CODES, OPERATIONS, PING_SENDERS, isDocumentedPath, type DocumentedRouteName, type ErrorAnswer, type ErrorCode, type Operation } from './operations.ts';
import { durationText } from './durations.ts';

/** SPEC.md, Versioning: the API version, carried in the path segment `/v1`. */
export const API_VERSION = '1.0.0';

const DESCRIPTION = `The Credential Handoff Service's public API: requests, ticket statuses, the event feed, webhook subscriptions, custody certificates and generated passwords under \`/v1\`, authenticated by an organisation API key (\`Authorization: Bearer <key>\`, made in the app's API settings); the inbound URLs of a generic ticketing integration, authenticated by the secret in the URL; and the certificate signing keys. No operation returns a credential.

Not described here: the endpoints under \`/subject\`, \`/share\` and \`/app/api\` and the pages (\`/r\`, \`/s\`, \`/app\`, \`/assets\`). They serve the service's own web pages, are authenticated by link tokens and member sessions, and change with the pages (docs/web-api.md).

Every keyed call is rate limited per key and per organisation; its answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`, and a refusal answers 429 \`rate_limited\` with \`Retry-After\`. A 401 under \`/v1\` carries \`WWW-Authenticate: Bearer realm="${BEARER_REALM}"\` (RFC 6750), with \`error="invalid_token"\` when the key sent was refused and \`error="invalid_request"\` when the \`Authorization\` header holds no single bearer key. Every POST under \`/v1\` (and an inbound URL, for a sender that sends one) takes an optional \`Idempotency-Key\`: the same key and body within 24 hours replays the first answer (with \`Idempotency-Replayed: true\`, and the fields shown once set to null).

A 422 \`validation_failed\` names each refused field in \`errors\`, at most ${MAX_FIELDS_NAMED} of them; when more were refused, \`message\` says how many.

One rule for the query string: a parameter the operation does not define answers 422 \`validation_failed\`, with \`errors\` naming it ("${UNKNOWN_QUERY_PARAMETER}"), on every operation but the inbound ticket URLs, which may read their fields from the query string. Before anything else, every operation answers 413 \`payload_too_large\` to a body over ${MAX_BODY_BYTES} bytes (a GET's too, whose body is otherwise ignored) and 431 \`request_header_fields_too_large\` to a request line and header values over ${MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES} bytes together; these two are answered before any key is read, so they carry no rate-limit headers. A path no route serves answers 404 \`not_found\` and a method the path does not allow 405 \`method_not_allowed\` with \`Allow\`, each with the error body.`;

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/** Each header an answer can carry; `required`: always sent where an answer lists it. */
const HEADERS: Record<string, JsonSchema> = {
  'X-RateLimit-Limit': { description: 'Calls the key may make per minute.', required: true, schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Calls left in the current minute, for the key and its organisation.', required: true, schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'When the current window ends, in unix seconds.', required: true, schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before calling again.', required: true, schema: { type: 'integer', minimum: 1 } },
  // A component of its own: the response header is Retry-After too, sent with one of a 409's meanings only.
  'Retry-After-Duplicate': {
    description: 'With `conflict` for a concurrent duplicate of an Idempotency-Key: seconds until the first call answers or its claim ends. Not sent with a 409 of another meaning.',
    schema: { type: 'integer', minimum: 1 },
  },
  Location: { description: 'The address of the created resource: a request is read there with GET; a webhook subscription is deleted there with DELETE (it has no GET, which answers 405 with Allow).', required: true, schema: { type: 'string', format: 'uri' } },
  'Idempotency-Replayed': { description: 'Present, `true`, when this is the stored answer to an earlier call with the same Idempotency-Key.', schema: { type: 'string', const: 'true' } },
  'WWW-Authenticate': {
    description:
      'The challenge (RFC 9110, RFC 6750): a bearer API key, with `error="invalid_token"` when the key sent was malformed, unknown, revoked or expired, and `error="invalid_request"` when the `Authorization` header held no single bearer key (two headers, or `Bearer` alone).',
    required: true,
    schema: { type: 'string', pattern: `^Bearer realm="${BEARER_REALM}"(, error="(invalid_request|invalid_token)")?$` },
  },
  // A component of its own: the response header is WWW-Authenticate too, with the inbound URLs' challenges.
  'WWW-Authenticate-Inbound': {
    description:
      `The challenge (RFC 9110) of the integration's check: \`SharedHeader realm="${INBOUND_REALM}"\` for a shared header (its name is not said), ` +
      `or \`Signature realm="${INBOUND_REALM}", header="<name>"\` with the header the signature is read from (\`X-Service-Signature\`, or a helpdesk's own).`,
    required: true,
    schema: { type: 'string', pattern: `^(SharedHeader realm="${INBOUND_REALM}"|Signature realm="${INBOUND_REALM}", header="[A-Za-z0-9-]+")$` },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const SECURITY_SCHEME = 'apiKey';

/** Errors every call with a key can get, and those every POST with a key can get besides. */
const KEYED_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'forbidden', 'plan_required', 'rate_limited', 'service_unavailable'];
const POST_ERRORS: readonly ErrorCode[] = ['bad_request', 'conflict', 'validation_failed', 'idempotency_key_reused'];
/** What the gateway answers before any function runs, on every operation. */
const TRANSPORT_ERRORS: readonly ErrorCode[] = ['payload_too_large', 'request_header_fields_too_large'];
/** The query rule (query-rule.ts), on every operation that reads no field from the query string. */
const UNKNOWN_QUERY: ErrorAnswer = ['validation_failed', `A query parameter the operation does not define: \`errors\` names it ("${UNKNOWN_QUERY_PARAMETER}").`];
/** Statuses answered before the key is read (or with it refused), which so carry no rate-limit headers. */
const UNCOUNTED_STATUSES = new Set([401, 413, 431]);

const isKeyed = (route: Route) => route.path.startsWith('/v1/') && route.scope !== 'public';
/** Every keyed POST, and the inbound URLs for a sender that sends one (http/inbound/inbound-replays.ts). */
const takesIdempotencyKey = (route: Route) => route.method === 'POST' && (isKeyed(route) || route.scope === 'url_secret');
/** What an Idempotency-Key adds to an inbound URL's answers (a keyed POST has them in POST_ERRORS). */
const INBOUND_IDEMPOTENCY_ERRORS: readonly ErrorAnswer[] = [
  ['conflict', 'Also: the same Idempotency-Key is still being processed (a concurrent duplicate).'],
  ['validation_failed', 'An `Idempotency-Key` longer than 200 characters (`errors` names the header).'],
  'idempotency_key_reused',
];
/** The inbound ticket URLs may read their fields from the query string; every other operation takes only its own parameters. */
const refusesUnknownQuery = (route: Route) => route.scope !== 'url_secret';

const schemaOf = (schema: $ZodType | JsonSchema, as: (schema: $ZodType) => JsonSchema): JsonSchema =>
  '_zod' in schema ? as(schema as $ZodType) : schema;

/** A body or response schema: a named object by reference, a handler's schema as a caller sends it. */
const responseSchema = (schema: $ZodType | JsonSchema) => schemaOf(schema, refTo);

/** Notes and after-shape keywords laid onto a body schema's fields; naming a field it lacks is a mistake. */
const withFieldNotes = (schema: JsonSchema, notes: Record<string, string> = {}, judgedAfter: Record<string, JsonSchema> = {}, where: string) => {
  const properties = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
  for (const [field, note] of Object.entries(notes)) {
    if (!properties[field]) throw new Error(`${where}: a note for ${field}, which the body does not have`);
    properties[field] = { ...properties[field], description: note };
  }
  for (const [field, keywords] of Object.entries(judgedAfter)) {
    if (!properties[field]) throw new Error(`${where}: keywords for ${field}, which the body does not have`);
    const current = properties[field];
    const items = keywords.items ? { items: { ...(current.items as JsonSchema), ...(keywords.items as JsonSchema) } } : {};
    properties[field] = { ...current, ...keywords, ...items };
  }
  return { ...schema, properties };
};

const NEVER_REPLAYED_STATUSES = new Set([413, 429, 431]);

/** The headers an error status carries (those listed as required, always). */
const errorHeaders = (status: number, route: Route) => {
  const keyed = isKeyed(route);
  const headers: Record<string, JsonSchema> = {};
  // Counted calls only; a 503 may come before the count or with it, so it promises none.
  if (keyed && !UNCOUNTED_STATUSES.has(status) && status !== 503) for (const name of RATE_HEADERS) headers[name] = headerRef(name);
  if (keyed && status === 401) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
  if (route.scope === 'url_secret' && status === 401) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate-Inbound');
  if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After');
  if (route.method === 'POST' && status === 409) headers['Retry-After'] = headerRef('Retry-After-Duplicate');
  // A refusal made after the Idempotency-Key was claimed is kept and replayed as any answer is;
  // those made before it (a body that is no JSON, no key, too large, over the limit) are not.
  if (route.method === 'POST' && status >= 403 && status < 500 && !NEVER_REPLAYED_STATUSES.has(status)) headers['Idempotency-Replayed'] = headerRef('Idempotency-Replayed');
  return headers;
};

const errorResponses = (answers: readonly ErrorAnswer[], route: Route) => {
  const byStatus = new Map<number, Array<{ code: ErrorCode; meaning: string }>>();
  for (const answer of answers) {
    const [code, meaning] = typeof answer === 'string' ? [answer, ERROR_CODES[answer][1]] : answer;
    const status = ERROR_CODES[code][0];
    const list = byStatus.get(status) ?? [];
    const known = list.find((entry) => entry.code === code);
    // A code listed again with what it also means on this operation: both are said.
    if (!known) list.push({ code, meaning });
    else if (!known.meaning.includes(meaning)) known.meaning = `${known.meaning} ${meaning}`;
    byStatus.set(status, list);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = errorHeaders(status, route);
    responses[String(status)] = {
      description: codes.map(({ code, meaning }) => `\`${code}\`: ${meaning}`).join(' '),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        'application/json': {
          schema: { allOf: [refTo(errorBody)], properties: { code: { type: 'string', enum: codes.map(({ code }) => code) } } },
        },
      },
    };
  }
  return responses;
};

const pathParameterNames = (template: string) => [...template.matchAll(/\{(\w+)\+?\}/g)].map(([, name]) => name);

const parametersOf = (route: Route, operation: Operation) => {
  const names = pathParameterNames(route.path);
  const described = Object.keys(operation.path ?? {});
  if (names.join() !== described.join()) throw new Error(`${route.name}: path parameters ${described} do not match ${route.path}`);
  const parameters: JsonSchema[] = names.map((name) => ({
    name,
    in: 'path',
    required: true,
    description: operation.path![name].description,
    schema: operation.path![name].schema,
  }));
  if (operation.query) {
    const notes = { ...(operation.query.notes ?? {}) };
    for (const field of queryFields(operation.query.schema)) {
      parameters.push({
        name: field.name,
        in: 'query',
        required: field.required,
        ...(notes[field.name] ? { description: notes[field.name] } : {}),
        schema: field.schema,
      });
      delete notes[field.name];
    }
    if (Object.keys(notes).length) throw new Error(`${route.name}: notes for query parameters it does not have: ${Object.keys(notes)}`);
  }
  if (takesIdempotencyKey(route)) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  return parameters;
};

const requestBodyOf = (route: Route, operation: Operation) => {
  const body = operation.body;
  if (!body) return undefined;
  const schema = withFieldNotes(schemaOf(body.schema, inputSchema), body.notes, body.judgedAfter, route.name);
  const content = Object.fromEntries((body.mediaTypes ?? ['application/json']).map((type) => [type, { schema }]));
  return { required: body.required, content };
};

const successOf = (route: Route, operation: Operation) => {
  const { success } = operation;
  const headers: Record<string, JsonSchema> = {};
  if (isKeyed(route)) for (const name of RATE_HEADERS) headers[name] = headerRef(name);
  for (const name of success.headers ?? []) headers[name] = headerRef(name);
  const content = success.content
    ? Object.fromEntries(Object.entries(success.content).map(([type, schema]) => [type, { schema: responseSchema(schema) }]))
    : undefined;
  return {
    [String(success.status)]: {
      description: success.description,
      ...(Object.keys(headers).length ? { headers } : {}),
      ...(content ? { content } : {}),
    },
  };
};

const securityOf = (route: Route) => {
  if (!isKeyed(route)) return { security: [] };
  const scope = route.scope === 'any' ? [] : [route.scope];
  return { security: [{ [SECURITY_SCHEME]: scope }] };
};

const accessNote = (route: Route) => {
  if (route.scope === 'any') return 'Needs an API key (any scope).';
  if (route.scope === 'public') return 'No key needed.';
  if (route.scope === 'url_secret') return 'No key: the URL carries the secret.';
  return `Needs an API key with the \`${route.scope}\` scope.`;
};

const operationOf = (route: Route, operation: Operation) => {
  const keyed = isKeyed(route);
  const errors: ErrorAnswer[] = [
    ...(keyed ? KEYED_ERRORS : []),
    ...(keyed && route.method === 'POST' ? POST_ERRORS : []),
    ...operation.errors,
    ...(takesIdempotencyKey(route) && !keyed ? INBOUND_IDEMPOTENCY_ERRORS : []),
    ...(refusesUnknownQuery(route) ? [UNKNOWN_QUERY] : []),
    ...TRANSPORT_ERRORS,
  ];
  const parameters = parametersOf(route, operation);
  const requestBody = requestBodyOf(route, operation);
  return {
    operationId: route.name,
    tags: [operation.tag],
    summary: operation.summary,
    description: [operation.description, accessNote(route)].filter(Boolean).join(' '),
    'x-scope': route.scope,
    ...securityOf(route),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...successOf(route, operation),
      ...errorResponses(errors, route),
      '500': { description: '`error`: an unexpected failure; the body tells nothing of it.', content: { 'application/json': { schema: refTo(errorBody) } } },
    },
  };
};

/**
 * The retry schedule as the worker runs it (workers/deliver.ts): each delay counted from the
 * attempt before, so the span of a delivery is their sum, not the last delay.
 */
const retrySchedule = () => {
  const delays = RETRY_DELAYS_SECONDS.map(durationText);
  const hours = (RETRY_SPAN_SECONDS / 3600).toFixed(1);
  return (
    `anything else is retried after ${delays.slice(0, -1).join(', ')} and ${delays.at(-1)}, each counted from the attempt before: ` +
    `${RETRY_DELAYS_SECONDS.length + 1} attempts, the last about ${hours} hours (${durationText(RETRY_SPAN_SECONDS)}) after the first; then the delivery is marked failed.`
  );
};

/** The outbound event delivery (SPEC.md, Events, Delivery), one POST per event to each subscribed URL. */
const eventDelivery = () => ({
  post: {
    operationId: 'eventDelivery',
    tags: ['Webhooks'],
    summary: 'An event, delivered to a subscribed URL',
    description:
      'Signed by the Standard Webhooks scheme: verify over the exact raw body, before parsing. The signed content is `<webhook-id>.<webhook-timestamp>.<raw body>`, ' +
      'the HMAC-SHA256 key the base64-decoded part of the secret after `whsec_`; compare in constant time and reject timestamps more than 300 seconds away. ' +
      'The service sends no credential of its own (no `security`): the signature headers are what prove a delivery genuine. ' +
      `Answer any 2xx within 10 seconds; ${retrySchedule()} Delivery is at least once: de-duplicate on the event \`id\`. ` +
      `Event types: ${EVENT_TYPES.join(', ')} (${PING_SENDERS}).`,
    security: [],
    parameters: [
      { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', const: USER_AGENT } },
      {
        name: 'webhook-id',
        in: 'header',
        required: true,
        description: 'A ULID, one per delivery, kept across automatic retries; new on a manual redelivery from the app.',
        schema: { type: 'string', pattern: ID_PATTERN.source },
      },
      { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds.', schema: { type: 'string', pattern: '^[0-9]+$' } },
      {
        name: 'webhook-signature',
        in: 'header',
        required: true,
        description: '`v1,<base64>`; several space-separated while a secret is rotated: accept if any one matches.',
        schema: { type: 'string' },
      },
      {
        name: 'X-Service-Signature',
        in: 'header',
        required: true,
        deprecated: true,
        description:
          'Legacy, sent alongside: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, keyed with the whole secret string as shown (`whsec_...`, prefix included; `webhook-signature` uses its base64-decoded key). While a secret is rotated it is signed with the new secret only.',
        schema: { type: 'string' },
      },
      { name: 'X-Service-Event', in: 'header', required: true, description: 'The event type.', schema: { type: 'string', enum: [...EVENT_TYPES] } },
      { name: 'X-Service-Delivery', in: 'header', required: true, description: 'The delivery\u2019s id, a ULID.', schema: { type: 'string', pattern: ID_PATTERN.source } },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: refTo(eventObject) } } },
    responses: { '2XX': { description: 'Received. Any other answer, or none within 10 seconds, is retried.' } },
  },
});

/** The OpenAPI 3.1 document of every route of the table it covers, in table order. */
export const openApiDocument = () => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeList()) {
    if (!isDocumentedPath(route.path)) continue;
    const operation = OPERATIONS[route.name as DocumentedRouteName];
    if (!operation) throw new Error(`${route.name} (${route.method} ${route.path}) has no entry in openapi/operations.ts`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, operation);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Credential Handoff Service API', version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: '/', description: 'The service\u2019s own address: the host this document is served from.' }],
    tags: [...new Set(Object.values(OPERATIONS).map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    webhooks: { event: eventDelivery() },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description:
            'An organisation API key, shown once when it is made. Each operation names the scope it needs (also in `x-scope`); `GET /v1/ping` and `POST /v1/generate` take any scope. ' +
            'A missing, unknown, revoked or expired key answers 401; a missing scope, another client\u2019s record or an address outside the key\u2019s allowlist 403.',
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'The same key and body within 24 hours replays the first answer (no body and `{}` are the same body); the same key with another body answers 422 `idempotency_key_reused`, and while the first call runs, 409 `conflict`.',
          schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
        },
      },
      headers: HEADERS,
    },
  };
};

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
