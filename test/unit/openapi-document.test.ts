import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { TRIGGER_FIELDS } from '../../lambdas/core/inbound/mapping.ts';
import { DOCUMENT_FILE, TYPES_FILE, documentText, typesText } from '../../lambdas/http/openapi/files.ts';
import { inputSchema } from '../../lambdas/http/openapi/json-schema.ts';
import { OPERATIONS, isDocumentedPath, type DocumentedRouteName } from '../../lambdas/http/openapi/operations.ts';
import { routeList, type Route } from '../../lambdas/http/routes.ts';
import { RETRY_SPAN_SECONDS } from '../../lambdas/workers/deliver.ts';
import { REQUEST_FIELDS } from '../support/shapes.ts';

/**
 * docs/openapi.json: what `npm run openapi` writes now, every route of the table it covers and
 * nothing else, SPEC.md's statuses and objects per endpoint, and valid OpenAPI 3.1.
 */
const root = join(import.meta.dirname, '..', '..');
const committedText = readFileSync(join(root, DOCUMENT_FILE), 'utf8');
const committed = JSON.parse(committedText);
const REGENERATE = `is not what the generator writes now: run \`npm run openapi\` and commit ${DOCUMENT_FILE} and ${TYPES_FILE}`;

type Json = Record<string, any>;
const documented = routeList().filter((route) => isDocumentedPath(route.path));
const operationIn = (document: Json, route: Pick<Route, 'method' | 'path'>): Json | undefined => document.paths?.[route.path]?.[route.method.toLowerCase()];

/**
 * SPEC.md, Endpoints: per endpoint, the success status and the object it answers with, and the
 * error statuses it names (every keyed call can also answer 401 and 403, every POST 409 and 422
 * for its Idempotency-Key, and 429 on the rate limit). The inbound URLs: SPEC.md's item 4.
 */
const SPEC_ENDPOINTS: Record<DocumentedRouteName, { success: [number, string | null]; errors: number[] }> = {
  ping: { success: [200, 'PingResult'], errors: [401, 403, 429] },
  generate: { success: [200, 'GeneratedCredential'], errors: [401, 422, 429] },
  listRequests: { success: [200, 'RequestList'], errors: [401, 403, 422, 429] },
  createRequest: { success: [201, 'RequestCreationResult'], errors: [401, 403, 409, 422, 429] },
  getRequest: { success: [200, 'Request'], errors: [401, 403, 404, 429] },
  revokeRequest: { success: [200, 'Request'], errors: [401, 403, 404, 409, 429] },
  completeRequest: { success: [200, 'Request'], errors: [401, 403, 404, 409, 429] },
  // An extension (docs/decisions.md): 409 for a request that cannot be relinked, 422 when no recipient can receive.
  relinkRequest: { success: [200, 'RelinkResult'], errors: [401, 403, 404, 409, 422, 429] },
  markTicketStatus: { success: [202, 'TicketStatusAcceptance'], errors: [401, 403, 422, 429] },
  requestCertificate: { success: [200, 'CustodyCertificate'], errors: [401, 403, 404, 429] },
  shareCertificate: { success: [200, 'CustodyCertificate'], errors: [401, 403, 404, 429] },
  listEvents: { success: [200, 'EventList'], errors: [401, 403, 422, 429] },
  listWebhooks: { success: [200, 'WebhookList'], errors: [401, 403, 429] },
  createWebhook: { success: [201, 'WebhookCreationResult'], errors: [401, 403, 422, 429] },
  deleteWebhook: { success: [204, null], errors: [401, 403, 404, 429] },
  openapi: { success: [200, null], errors: [] },
  jwks: { success: [200, 'JsonWebKeySet'], errors: [] },
  inboundTicketStatus: { success: [202, 'InboundAcceptance'], errors: [401, 404, 409, 429] },
  inboundTicketTrigger: { success: [202, 'InboundAcceptance'], errors: [401, 404, 409, 429] },
};

/** Every `$ref` in the document, with where it sits. */
const refsIn = (value: unknown, at = '#'): Array<[string, string]> => {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === '$ref' && typeof item === 'string' ? [[at, item] as [string, string]] : refsIn(item, `${at}/${key}`),
  );
};
const resolve = (document: Json, ref: string) =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` writes from the route table and the schemas now', async () => {
    expect(committedText, `${DOCUMENT_FILE} ${REGENERATE}`).toBe(documentText());
    const types = readFileSync(join(root, TYPES_FILE), 'utf8');
    expect(types, `${TYPES_FILE} ${REGENERATE}`).toBe(await typesText(committed));
  });

  it('holds every /v1 route of the table, the inbound ticket URLs and the signing keys, each with its method, path, parameters and scope', () => {
    expect(documented.map((route) => route.name).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const route of documented) {
      const operation = operationIn(committed, route);
      expect(operation, `${route.method} ${route.path} (${route.name}) is in ${DOCUMENT_FILE}: run \`npm run openapi\``).toBeDefined();
      expect(operation!.operationId, route.path).toBe(route.name);
      expect(operation!['x-scope'], `${route.name} scope`).toBe(route.scope);

      const keyed = route.path.startsWith('/v1/') && route.scope !== 'public';
      const expectedSecurity = keyed ? [{ apiKey: route.scope === 'any' ? [] : [route.scope] }] : [];
      expect(operation!.security, `${route.name} security`).toEqual(expectedSecurity);

      const parameters: Json[] = operation!.parameters ?? [];
      const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      expect(parameters.filter((p) => p.in === 'path').map((p) => p.name), `${route.name} path parameters`).toEqual(pathNames);
      for (const parameter of parameters.filter((p) => p.in === 'path')) expect(parameter.required).toBe(true);

      // The query parameters are exactly those the handler's schema reads.
      const querySchema = OPERATIONS[route.name as DocumentedRouteName].query?.schema;
      const queryNames = querySchema ? Object.keys(inputSchema(querySchema).properties as Json) : [];
      expect(parameters.filter((p) => p.in === 'query').map((p) => p.name), `${route.name} query parameters`).toEqual(queryNames);

      const idempotent = parameters.some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
      // Every keyed POST; and the inbound URLs, for a sender that sends one.
      expect(idempotent, `${route.name} takes an Idempotency-Key`).toBe(route.method === 'POST' && (keyed || route.scope === 'url_secret'));
    }
  });

  it('holds nothing that is not a route of the table, and none of the web pages\u2019 own endpoints', () => {
    const byKey = new Map(routeList().map((route) => [`${route.method} ${route.path}`, route]));
    for (const [path, item] of Object.entries(committed.paths as Json)) {
      for (const method of Object.keys(item)) {
        const route = byKey.get(`${method.toUpperCase()} ${path}`);
        expect(route, `${method.toUpperCase()} ${path} is a route of lambdas/http/routes.ts`).toBeDefined();
        expect(isDocumentedPath(route!.path), `${path} is a path the document covers`).toBe(true);
      }
    }
    for (const prefix of ['/subject/', '/share/', '/app', '/r/', '/s/', '/assets/']) {
      expect(Object.keys(committed.paths).filter((path) => path.startsWith(prefix)), prefix).toEqual([]);
    }
  });

  it('answers with SPEC.md\u2019s statuses and objects, the error body, the rate-limit headers and Retry-After', () => {
    for (const route of documented) {
      const { success, errors } = SPEC_ENDPOINTS[route.name as DocumentedRouteName];
      const responses: Json = operationIn(committed, route)!.responses;
      const statuses = Object.keys(responses);
      expect(statuses.filter((status) => status.startsWith('2')), `${route.name} success`).toEqual([String(success[0])]);
      for (const status of errors) expect(statuses, `${route.name} answers ${status}`).toContain(String(status));

      const ok = responses[String(success[0])];
      if (success[1]) {
        const schemas = Object.values(ok.content as Json).map((media) => media.schema.$ref);
        expect(schemas, `${route.name} answers a ${success[1]}`).toContain(`#/components/schemas/${success[1]}`);
      } else if (success[0] === 204) {
        expect(ok.content, `${route.name} answers no body`).toBeUndefined();
      }

      const keyed = route.path.startsWith('/v1/') && route.scope !== 'public';
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) {
          const schema = response.content['application/json'].schema;
          const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
          expect(ref, `${route.name} ${status} is the error body`).toBe('#/components/schemas/Error');
        }
        // Counted calls only: 401, 413 and 431 are answered before a key is counted.
        if (keyed && !['401', '413', '431'].includes(status) && Number(status) < 500) {
          expect(Object.keys(response.headers ?? {}), `${route.name} ${status} rate-limit headers`).toEqual(
            expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
          );
        }
      }
      if (responses['429']) expect(Object.keys(responses['429'].headers), `${route.name} 429`).toContain('Retry-After');
      // A concurrent duplicate of any keyed POST is a 409 `conflict`.
      if (keyed && route.method === 'POST') expect(responseCodes(committed, route.name, '409'), `${route.name} 409`).toContain('conflict');
    }
    expect(responseCodes(committed, 'revokeRequest', '409')).toEqual(['conflict', 'illegal_transition']);
    expect(responseCodes(committed, 'listRequests', '403')).toEqual(['forbidden', 'plan_required']);
    expect(responseCodes(committed, 'createRequest', '422')).toEqual(['validation_failed', 'idempotency_key_reused']);
  });

  it('describes SPEC.md\u2019s objects: the Request\u2019s fields, the error body and the limits of the bodies and queries', () => {
    const schemas = committed.components.schemas;
    expect(Object.keys(schemas.Request.properties).sort()).toEqual([...REQUEST_FIELDS].sort());
    expect(schemas.Request.required.sort()).toEqual([...REQUEST_FIELDS].sort());
    expect(schemas.Error.required).toEqual(['message', 'code']);
    expect(schemas.Error.properties.errors.additionalProperties).toMatchObject({ type: 'array', items: { type: 'string' } });

    const body = (name: string) => operationOf(committed, name).requestBody.content['application/json'].schema;
    const create = body('createRequest');
    expect(create.required).toEqual(['subject_name']);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.subject_name).toMatchObject({ minLength: 2, maxLength: 120 });
    expect(create.properties.justification).toMatchObject({ minLength: 10, maxLength: 1000 });
    expect(create.properties.recipients).toMatchObject({ minItems: 1, maxItems: 64 });
    expect(create.properties.ttl_minutes).toMatchObject({ type: 'integer', minimum: 5, maximum: 43200 });
    // The addresses as the service judges them: an email of at most 254 characters, never any string.
    const asString = (schema: Json) => (schema.anyOf as Json[] | undefined)?.find((option) => option.type === 'string') ?? schema;
    for (const address of [create.properties.subject_email, create.properties.requester, create.properties.recipients.items]) {
      expect(asString(address)).toMatchObject({ type: 'string', format: 'email', maxLength: 254 });
    }
    expect(body('createWebhook').properties.description.anyOf[0]).toMatchObject({ maxLength: 200 });
    expect(body('createWebhook').properties.events).toMatchObject({ minItems: 1, maxItems: body('createWebhook').properties.events.items.enum.length });
    expect(body('createWebhook').properties.events.items.enum).not.toContain('ping');
    expect(body('markTicketStatus').properties.status.enum).toEqual(['open', 'pending', 'resolved', 'closed']);

    const query = (name: string, parameter: string) => operationOf(committed, name).parameters.find((p: Json) => p.name === parameter).schema;
    expect(query('listRequests', 'limit')).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(query('listEvents', 'limit')).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 100 });
    expect(query('listRequests', 'ticket_ref')).toMatchObject({ maxLength: 120 });
    expect(operationOf(committed, 'markTicketStatus').parameters[0].schema).toMatchObject({ minLength: 1, maxLength: 120 });
    expect(committed.components.parameters.IdempotencyKey.schema).toMatchObject({ maxLength: 200 });

    // The trigger URL's default field positions are the ones the integration reads.
    const trigger = operationOf(committed, 'inboundTicketTrigger').requestBody.content['application/json'].schema.properties;
    for (const field of TRIGGER_FIELDS) expect(resolve(trigger, field.split('.').join('/properties/')), field).toBeDefined();

    expect(committed.webhooks.event.post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/Event');
  });

  it('answers on every operation what the gateway and the query rule answer: 413, 431 and (but the inbound URLs) 422 for an unknown query parameter', () => {
    for (const route of documented) {
      const responses: Json = operationIn(committed, route)!.responses;
      for (const [status, code] of [['413', 'payload_too_large'], ['431', 'request_header_fields_too_large']]) {
        expect(responseCodes(committed, route.name, status), `${route.name} ${status}`).toEqual([code]);
        expect(responses[status].headers, `${route.name} ${status} is answered before any key is read`).toBeUndefined();
      }
      const readsQueryFields = route.scope === 'url_secret';
      // The inbound URLs answer 422 only for their Idempotency-Key, never for a query parameter.
      expect(responses['422'] !== undefined, `${route.name} 422`).toBe(!readsQueryFields || route.method === 'POST');
      if (readsQueryFields && responses['422']) expect(responses['422'].description, `${route.name} 422`).not.toContain('Unknown query parameter.');
      if (!readsQueryFields) {
        expect(responseCodes(committed, route.name, '422'), `${route.name} 422`).toContain('validation_failed');
        expect(responses['422'].description, `${route.name} 422`).toContain('Unknown query parameter.');
      }
    }
  });

  it('sends WWW-Authenticate with every keyed 401, and promises the headers a 503 may lack nowhere', () => {
    for (const route of documented.filter((candidate) => candidate.path.startsWith('/v1/') && candidate.scope !== 'public')) {
      const responses: Json = operationIn(committed, route)!.responses;
      expect(Object.keys(responses['401'].headers), `${route.name} 401`).toEqual(['WWW-Authenticate']);
      expect(Object.keys(responses['503'].headers), `${route.name} 503`).toEqual(['Retry-After']);
    }
    const challenge = committed.components.headers['WWW-Authenticate'];
    expect(challenge.required).toBe(true);
    for (const value of ['Bearer realm="api"', 'Bearer realm="api", error="invalid_token"', 'Bearer realm="api", error="invalid_request"']) {
      expect(value).toMatch(new RegExp(challenge.schema.pattern));
    }
    expect(committed.components.headers['Idempotency-Replayed'].required).toBeUndefined();
  });

  it('bounds POST /v1/generate\u2019s length in its schema, as the service does', () => {
    const length = operationOf(committed, 'generate').requestBody.content['application/json'].schema.properties.length;
    expect(length).toMatchObject({ type: 'integer', minimum: 8, maximum: 128, default: 20 });
  });

  it('describes the webhook delivery as it runs: no security of its own, the retries\u2019 whole span, and who sends `ping`', () => {
    const delivery = committed.webhooks.event.post;
    expect(delivery.security).toEqual([]);
    expect(RETRY_SPAN_SECONDS).toBe(160_560);
    expect(delivery.description).toContain('retried after 1 m, 5 m, 30 m, 2 h, 6 h, 12 h and 24 h, each counted from the attempt before: 8 attempts, the last about 44.6 hours (44 h 36 m) after the first');
    for (const text of [delivery.description, operationOf(committed, 'createWebhook').requestBody.content['application/json'].schema.properties.events.description]) {
      expect(text).toContain('the operator CLI\u2019s `webhook-ping`');
      expect(text).toContain('Send test ping');
    }
  });

  it('refers only to what it defines', () => {
    const refs = refsIn(committed);
    expect(refs.length).toBeGreaterThan(50);
    for (const [at, ref] of refs) expect(resolve(committed, ref), `${ref} at ${at}`).toBeDefined();
  });

  it('is valid OpenAPI 3.1 to a standard validator, which refuses a broken copy', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(committed));
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const broken = structuredClone(committed);
    delete broken.paths['/v1/ping'].get.responses['200'].description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

const operationOf = (document: Json, name: string): Json => {
  const route = routeList().find((candidate) => candidate.name === name)!;
  return operationIn(document, route)!;
};
const responseCodes = (document: Json, name: string, status: string): string[] =>
  operationOf(document, name).responses[status].content['application/json'].schema.properties.code.enum;
