/**
 * Every validation message the API answers is the service's own, in one voice: over real HTTP,
 * every field of every JSON body and every query parameter the OpenAPI document lists (a nested
 * object's fields too) is sent values of every wrong kind, alone, so the other required fields are
 * missing as well; every message of every 422 must read as the service writes ("Required.",
 * "Must be ..."), never as the validator's defaults ("Invalid input: expected string, received
 * number").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedOperations, readDocument, type DocumentedOperation } from '../support/openapi-answers.ts';
import { expectServiceVoice, fieldMessages } from '../support/service-voice.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

type Json = Record<string, any>;

/** Values of every JSON kind, and of sizes and shapes no field takes. */
const WRONG_VALUES: unknown[] = [null, true, 0, -1, 1.5, 1e6, '', ' ', 'x', 'x'.repeat(3000), 'not an email@', [], [1], ['x'], [null], {}, { a: 1 }];
const WRONG_BODIES = ['[]', '"x"', '5', '{"unknown_field":1}'];
const WRONG_QUERY_VALUES = ['', 'x', '-1', '0', '1.5', '1e2', '99999999999999999999', 'q'.repeat(300), 'pending,opened', '2026-02-30'];
const PATH_VALUES: Record<string, string> = { id: '01aaaaaaaaaaaaaaaaaaaaaaaa', ref: 'INC-4711' };

let service: TestService;
let org: TestOrganisation;
const document = readDocument();
const keyed = documentedOperations(document).filter((operation) => (operation.operation.security ?? []).some((requirement: Json) => Object.keys(requirement).length > 0));

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
  await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 100_000, perOrgPerMinute: 100_000 });
});
afterAll(() => service?.stop());

/** A schema's object form: itself, or the object among its `anyOf` (a nullable object). */
const objectOf = (schema: Json | undefined): Json | undefined =>
  schema?.properties ? schema : (schema?.anyOf as Json[] | undefined)?.find((option) => option.properties);

/** Every body that puts a wrong value in one field, nested fields included. */
const wrongBodies = (schema: Json, at: string[] = []): unknown[] =>
  Object.entries((schema.properties ?? {}) as Json).flatMap(([name, property]) => {
    const nest = (value: unknown): unknown => [...at, name].reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
    const nested = objectOf(property);
    return [...WRONG_VALUES.map(nest), ...(nested ? wrongBodies(nested, [...at, name]) : [])];
  });

const pathOf = (operation: DocumentedOperation) => operation.template.replace(/\{(\w+)\}/g, (_, name: string) => PATH_VALUES[name]).replace(/^\/v1/, '');

/** Each call's messages, by where they came from. */
const messagesOf = async (operation: DocumentedOperation, calls: Array<{ query?: string; body?: string; headers?: Record<string, string> }>) => {
  const found: Array<[string, string]> = [];
  for (const call of calls) {
    const answer = await service.call(operation.method, `${pathOf(operation)}${call.query ? `?${call.query}` : ''}`, {
      key: org.key,
      rawBody: call.body,
      headers: { ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...call.headers },
    });
    if (answer.status !== 422) continue;
    for (const [field, message] of fieldMessages(answer.body)) found.push([`${operation.operationId} ${field} (${call.query ?? call.body?.slice(0, 60)})`, message]);
  }
  return found;
};

describe('validation messages, on every operation the document lists', () => {
  const allMessages = new Set<string>();

  for (const operation of keyed) {
    const body = objectOf(operation.operation.requestBody?.content?.['application/json']?.schema);
    const parameters = ((operation.operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in === 'query');
    it(`${operation.method} ${operation.template}`, async () => {
      const calls = [
        ...(body ? [...wrongBodies(body).map((value) => ({ body: JSON.stringify(value) })), ...WRONG_BODIES.map((text) => ({ body: text }))] : []),
        ...parameters.flatMap((parameter) => WRONG_QUERY_VALUES.map((value) => ({ query: `${parameter.name}=${encodeURIComponent(value)}` }))),
        { query: 'unknown_parameter=1' },
        ...(operation.method === 'POST' ? [{ headers: { 'Idempotency-Key': 'k'.repeat(201) }, ...(body ? { body: '{}' } : {}) }] : []),
      ];
      const found = await messagesOf(operation, calls);
      expect(found.length, `${operation.operationId} answered 422 with messages`).toBeGreaterThan(0);
      for (const [where, message] of found) {
        expectServiceVoice([message], where);
        allMessages.add(message);
      }
    });
  }

  it('met the validator on many kinds of mistake', () => {
    for (const message of ['Required.', 'Must be a string.', 'Must be an object.', 'Must be true or false.', 'Unknown field.', 'Unknown query parameter.']) {
      expect([...allMessages], message).toContain(message);
    }
    expect(allMessages.size).toBeGreaterThan(25);
  });
});
