/**
 * Every kind of answer carries Strict-Transport-Security (a year, subdomains included) and
 * X-Content-Type-Options: nosniff (lambdas/http/responses.ts, TRANSPORT_HEADERS): JSON answers and
 * their errors, an empty 204, the pages, a redirect, the OpenAPI document, the JWKS and a
 * certificate's PDF, over real HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Transport Ltd' });
});
afterAll(async () => service?.stop());

const HSTS = 'max-age=31536000; includeSubDomains';
const expectTransportHeaders = (headers: Headers, what: string) => {
  expect(headers.get('strict-transport-security'), what).toBe(HSTS);
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
};

it('on JSON answers, their errors and an empty 204', async () => {
  const ping = await service.call('GET', '/ping', { key: org.key });
  expect(ping.status).toBe(200);
  expectTransportHeaders(ping.headers, 'GET /v1/ping');
  for (const [what, answer, status] of [
    ['no key', await service.call('GET', '/ping'), 401],
    ['an unknown request', await service.call('GET', '/requests/01hzzzzzzzzzzzzzzzzzzzzzzz', { key: org.key }), 404],
    ['a bad body', await service.call('POST', '/requests', { key: org.key, body: { subject_name: 1 } }), 422],
    ['an unknown path', await service.call('GET', '/nowhere', { key: org.key }), 404],
  ] as const) {
    expect(answer.status, what).toBe(status);
    expectTransportHeaders(answer.headers, what);
  }
  const webhook = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/handoff', events: ['request.created'] } });
  expect(webhook.status, webhook.text).toBe(201);
  const deleted = await service.call('DELETE', `/webhooks/${webhook.body.id}`, { key: org.key });
  expect(deleted.status).toBe(204);
  expectTransportHeaders(deleted.headers, 'DELETE /v1/webhooks/{id}');
});

it('on the pages, the redirect to them, the OpenAPI document, the JWKS and a certificate PDF', async () => {
  const page = await fetch(`${service.appUrl}/app`);
  expect(page.status).toBe(200);
  expectTransportHeaders(page.headers, 'the member application');
  const root = await fetch(`${service.appUrl}/`, { redirect: 'manual' });
  expect(root.status).toBe(302);
  expectTransportHeaders(root.headers, 'the redirect from /');
  for (const path of ['/openapi.json', '/.well-known/jwks.json']) {
    const answer = await service.call('GET', path);
    expect(answer.status, path).toBe(200);
    expectTransportHeaders(answer.headers, path);
  }
  const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Jane Doe', justification: 'Needs the VPN password', recipients: [org.owner.email] } });
  expect(created.status, created.text).toBe(201);
  const pdf = await service.call('GET', `/requests/${created.body.request.id}/certificate?format=pdf`, { key: org.key });
  expect(pdf.status, pdf.text.slice(0, 200)).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  expectTransportHeaders(pdf.headers, 'a certificate PDF');
});
