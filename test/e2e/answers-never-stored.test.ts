/**
 * No JSON answer of the service may be kept by a browser, a proxy or a CDN: reads carry a
 * subject's email and phone and receivers' URLs, refusals tell what a key or a link is. Every one
 * carries `Cache-Control: no-store`, reads and refusals alike; only the two public documents (the
 * OpenAPI document and the signing keys) may be cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

describe('Cache-Control on every JSON answer', () => {
  let service: TestService;
  let org: TestOrganisation;
  let requestId: string;

  beforeAll(async () => {
    service = await startTestService();
    org = await service.createOrganisation({ name: 'Cache Org' });
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', subject_email: 'jane@example.com', subject_phone: '+447400123456', justification: 'Need the VPN admin password', recipients: [org.owner.email] },
    });
    expect(created.status, created.text).toBe(201);
    requestId = created.body.request.id;
  });
  afterAll(() => service?.stop());

  const answers: Array<[string, string, string, { key?: string | null; body?: unknown; headers?: Record<string, string> }?, number?]> = [
    ['a request read', 'GET', '/requests/{id}', undefined, 200],
    ['the request list', 'GET', '/requests', undefined, 200],
    ['the event feed', 'GET', '/events', undefined, 200],
    ['the webhook list', 'GET', '/webhooks', undefined, 200],
    ['ping', 'GET', '/ping', undefined, 200],
    ['a 401 (no key)', 'GET', '/requests', { key: null }, 401],
    ['a 404 (no such request)', 'GET', '/requests/01aaaaaaaaaaaaaaaaaaaaaaaa', undefined, 404],
    ['a 422 (unknown query parameter)', 'GET', '/requests?limt=5', undefined, 422],
    ['a 405 (method the path does not allow)', 'DELETE', '/ping', undefined, 405],
    ['a subject 404 (unknown link)', 'GET', '/subject/request', { key: null, headers: { 'X-Link-Token': 'A'.repeat(43) } }, 404],
  ];

  it.each(answers)('%s answers no-store', async (_, method, path, options = {}, status) => {
    const answer = await service.call(method, path.replace('{id}', requestId), { key: org.key, ...options });
    expect(answer.status, answer.text).toBe(status);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('the OpenAPI document and the signing keys may be cached', async () => {
    expect((await service.call('GET', '/openapi.json', { key: null })).headers.get('cache-control')).toBe('public, max-age=300');
    expect((await service.call('GET', '/.well-known/jwks.json', { key: null })).headers.get('cache-control')).toBe('public, max-age=300');
  });
});
