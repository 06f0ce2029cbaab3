/**
 * What the gateway and the handler stack answer outside the happy path: 405 method_not_allowed
 * with Allow, 404 for unknown paths, 400 bad_request for malformed JSON, and a 500 `error` that
 * tells nothing of the failure inside.
 */
import type { Server } from 'node:http';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppDeps } from '../../lambdas/app-deps.ts';
import { createGateway, listen } from '../../lambdas/local/gateway.ts';
import { auditEntries, expectCreationResult, expectError, expectKeys } from '../support/shapes.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let writer: string;
let reader: string;
let requestId: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Routing Org' });
  writer = await service.createKey(org.orgId, { scopes: ['requests:write'], name: 'Routing writer' });
  reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Routing reader' });
  const created = await service.call('POST', '/requests', {
    key: writer,
    body: { subject_name: 'Jane Doe', justification: 'Need the switch admin password', recipients: [org.owner.email] },
  });
  expect(created.status, created.text).toBe(201);
  requestId = expectCreationResult(created.body).request.id;
});
afterAll(() => service?.stop());

/** A call to any path of the server (outside {base_url} too). */
const raw = async (port: number, method: string, path: string, init: { key?: string; body?: string } = {}): Promise<ApiAnswer> => {
  const headers: Record<string, string> = {};
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body: init.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
};

describe('405 method_not_allowed', () => {
  const cases: Array<[string, string, string]> = [
    ['POST', '/v1/ping', 'GET'],
    ['DELETE', '/v1/ping', 'GET'],
    ['GET', '/v1/generate', 'POST'],
    ['PUT', '/v1/generate', 'POST'],
    ['DELETE', '/v1/requests', 'GET, POST'],
    ['PUT', '/v1/requests', 'GET, POST'],
    ['PATCH', '/v1/requests', 'GET, POST'],
    ['POST', '/v1/requests/{id}', 'GET'],
    ['DELETE', '/v1/requests/{id}', 'GET'],
    ['PUT', '/v1/requests/{id}', 'GET'],
    ['GET', '/v1/requests/{id}/revoke', 'POST'],
    ['DELETE', '/v1/requests/{id}/revoke', 'POST'],
    ['GET', '/v1/requests/{id}/complete', 'POST'],
    ['PUT', '/v1/requests/{id}/complete', 'POST'],
  ];

  it.concurrent.each(cases)('%s %s answers 405 with Allow: %s', async (method, template, allow) => {
    const answer = await raw(service.port, method, template.replace('{id}', requestId), { key: writer });
    expectError(answer, 405, 'method_not_allowed');
    expect(answer.headers.get('allow')).toBe(allow);
  });

  it('changes nothing on a refused method', async () => {
    const before = await auditEntries(service, org.orgId);
    await raw(service.port, 'DELETE', `/v1/requests/${requestId}`, { key: writer });
    await raw(service.port, 'GET', `/v1/requests/${requestId}/revoke`, { key: writer });
    expect((await auditEntries(service, org.orgId)).length).toBe(before.length);
    const read = await service.call('GET', `/requests/${requestId}`, { key: reader });
    expect(read.body.status).toBe('pending');
  });
});

describe('the addresses a person types', () => {
  it.each(['/', '/app/'])('GET %s leads to the member application', async (path) => {
    const response = await fetch(`http://127.0.0.1:${service.port}${path}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/app');
    expect((await fetch(`http://127.0.0.1:${service.port}${path}`, { method: 'HEAD', redirect: 'manual' })).status).toBe(302);
  });
});

describe('404 for a path that does not exist', () => {
  it.concurrent.each([
    ['GET', '/v1/nothing-here'],
    ['POST', '/v1/nothing-here'],
    ['GET', '/v1'],
    ['GET', '/v1/'],
    // Only GET and HEAD of the root lead to the application.
    ['POST', '/'],
    ['GET', '/ping'],
    ['GET', '/v2/ping'],
    ['GET', '/v1/requests/'],
    ['GET', '/v1/requests/{id}/unknown'],
    ['POST', '/v1/requests/{id}/reopen'],
    ['GET', '/v1/PING'],
  ])('%s %s answers 404 not_found', async (method, template) => {
    const answer = await raw(service.port, method, template.replace('{id}', requestId), { key: reader });
    expectError(answer, 404, 'not_found');
    expect(answer.headers.get('allow')).toBeNull();
  });
});

describe('400 bad_request on malformed JSON', () => {
  it.each([
    ['POST', '/v1/requests', '{"subject_name": "Jane",'],
    ['POST', '/v1/requests', "{'subject_name': 'Jane'}"],
    ['POST', '/v1/generate', 'length=20'],
    ['POST', '/v1/generate', '{"length": 20}}'],
    ['POST', '/v1/requests/{id}/revoke', '{'],
    ['POST', '/v1/requests/{id}/complete', 'not json'],
  ])('%s %s with body %s answers 400 bad_request', async (method, template, body) => {
    const answer = await raw(service.port, method, template.replace('{id}', requestId), { key: writer, body });
    expectError(answer, 400, 'bad_request');
  });

  it('creates, revokes and audits nothing on malformed JSON', async () => {
    const before = await auditEntries(service, org.orgId);
    const listed = await service.call('GET', '/requests', { key: reader });
    await raw(service.port, 'POST', '/v1/requests', { key: writer, body: '{"subject_name":' });
    await raw(service.port, 'POST', `/v1/requests/${requestId}/revoke`, { key: writer, body: '{' });
    expect((await auditEntries(service, org.orgId)).length).toBe(before.length);
    const after = await service.call('GET', '/requests', { key: reader });
    expect(after.body.data).toEqual(listed.body.data);
  });
});

describe('500 error with no internal detail', () => {
  const INTERNAL = 'INTERNAL-DETAIL arn:aws:dynamodb:eu-west-2:123456789012:table/secret-table';
  let server: Server;
  let port: number;
  let logger: Logger;
  let logged: ReturnType<typeof vi.spyOn>;

  beforeAll(async () => {
    const fail = async (): Promise<never> => {
      const error = new Error(INTERNAL);
      // Not a transient failure (those answer 503, see fault-injection.test.ts): a retry would not help.
      error.name = 'ValidationException';
      throw error;
    };
    const requests = {
      get: fail,
      create: fail,
      update: fail,
      // Not even an Error: the handler must cope with anything thrown.
      list: async () => {
        throw `${INTERNAL} (thrown as a string)`;
      },
    } as unknown as AppDeps['requests'];
    logger = new Logger({ serviceName: 'routing-errors-test', logLevel: 'SILENT' });
    logged = vi.spyOn(logger, 'error');
    server = createGateway({ ...service.deps, logger, requests });
    port = await listen(server, 0);
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => server?.close(() => done(undefined)));
  });

  const expectOpaque500 = (answer: ApiAnswer) => {
    expect(answer.status, answer.text).toBe(500);
    expect(answer.headers.get('content-type')).toContain('application/json');
    expectKeys(answer.body, ['message', 'code'], '500 body');
    expect(answer.body.code).toBe('error');
    expect(typeof answer.body.message).toBe('string');
    expect(answer.body.message.length).toBeGreaterThan(0);
    for (const leak of ['INTERNAL-DETAIL', 'arn:aws', 'secret-table', 'ProvisionedThroughput', 'Error:', 'stack', '.ts:', '    at ']) {
      expect(answer.text, `the 500 body leaks ${leak}`).not.toContain(leak);
    }
    for (const [name, value] of answer.headers) {
      expect(`${name}: ${value}`, 'a header leaks the failure').not.toContain('INTERNAL-DETAIL');
    }
  };

  it('GET /requests/{id} answers exactly {message, code: "error"}', async () => {
    expectOpaque500(await raw(port, 'GET', `/v1/requests/${requestId}`, { key: reader }));
  });

  it('GET /requests answers 500 when the repository throws a non-Error', async () => {
    expectOpaque500(await raw(port, 'GET', '/v1/requests', { key: reader }));
  });

  it('POST /requests answers 500 and stores nothing', async () => {
    const before = await auditEntries(service, org.orgId);
    const answer = await raw(port, 'POST', '/v1/requests', {
      key: writer,
      body: JSON.stringify({ subject_name: 'Jane Doe', justification: 'Need the switch admin password', recipients: [org.owner.email] }),
    });
    expectOpaque500(answer);
    expect(answer.headers.get('location')).toBeNull();
    expect((await auditEntries(service, org.orgId)).length).toBe(before.length);
  });

  it('POST /requests/{id}/revoke and /complete answer 500 and change nothing', async () => {
    expectOpaque500(await raw(port, 'POST', `/v1/requests/${requestId}/revoke`, { key: writer }));
    expectOpaque500(await raw(port, 'POST', `/v1/requests/${requestId}/complete`, { key: writer }));
    const read = await service.call('GET', `/requests/${requestId}`, { key: reader });
    expect(read.body.status).toBe('pending');
  });

  it('logs the failure by name on the server side', async () => {
    logged.mockClear();
    await raw(port, 'GET', `/v1/requests/${requestId}`, { key: reader });
    expect(logged).toHaveBeenCalled();
    expect(JSON.stringify(logged.mock.calls)).toContain('ValidationException');
  });

  it('still answers 4xx errors as themselves', async () => {
    expectError(await raw(port, 'GET', '/v1/requests/not-an-id', { key: reader }), 404, 'not_found');
    expectError(await raw(port, 'POST', '/v1/requests', { key: writer, body: '{' }), 400, 'bad_request');
    expectError(await raw(port, 'PUT', '/v1/requests', { key: writer }), 405, 'method_not_allowed');
  });
});
