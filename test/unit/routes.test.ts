import { describe, expect, it } from 'vitest';
import { CERTIFICATE_ENTRY, matchRoute, routeList, ROUTES, FALLBACK_ENTRY } from '../../lambdas/http/routes.ts';

const ID = '01hrequest0000000000000001';

/** The route table as SPEC.md's Endpoints lists it (the rows this service implements). */
const EXPECTED = [
  ['ping', 'GET', '/v1/ping', 'any'],
  ['generate', 'POST', '/v1/generate', 'any'],
  ['listRequests', 'GET', '/v1/requests', 'requests:read'],
  ['createRequest', 'POST', '/v1/requests', 'requests:write'],
  ['getRequest', 'GET', '/v1/requests/{id}', 'requests:read'],
  ['revokeRequest', 'POST', '/v1/requests/{id}/revoke', 'requests:write'],
  ['completeRequest', 'POST', '/v1/requests/{id}/complete', 'requests:write'],
  ['markTicketStatus', 'POST', '/v1/tickets/{ref}/status', 'tickets:write'],
] as const;

/** A concrete path for a template, and the path parameters it should give. */
const SAMPLE_VALUES: Record<string, string> = { id: ID, deliveryId: ID, token: 'T'.repeat(43), file: 'app.js', path: 'requests/abc', ref: 'INC-4711', secret: 'S'.repeat(43) };
const concrete = (template: string) => template.replace(/\{(\w+)\+?\}/g, (_, name: string) => SAMPLE_VALUES[name]);
const parametersOf = (template: string) =>
  Object.fromEntries([...template.matchAll(/\{(\w+)\+?\}/g)].map(([, name]) => [name, SAMPLE_VALUES[name]]));

describe('route table', () => {
  it('holds the SPEC rows with their scopes, first', () => {
    expect(routeList().slice(0, EXPECTED.length).map((r) => [r.name, r.method, r.path, r.scope])).toEqual(EXPECTED.map((row) => [...row]));
  });

  it('gives every row a unique name and method+path, and API rows a handler file of their own', () => {
    const rows = routeList();
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => `${r.method} ${r.path}`)).size).toBe(rows.length);
    // One function per API row, but for the certificate routes, which share the one function that carries the PDF renderer.
    const apiEntries = rows.filter((r) => r.path.startsWith('/v1/') && r.entry !== CERTIFICATE_ENTRY).map((r) => r.entry);
    expect(new Set(apiEntries).size).toBe(apiEntries.length);
    for (const entry of apiEntries) expect(entry).toMatch(/^lambdas\/http\/handlers\/[a-z-]+\.ts$/);
    expect(rows.filter((r) => r.entry === CERTIFICATE_ENTRY).map((r) => r.path).sort()).toEqual([
      '/app/api/requests/{id}/certificate',
      '/app/api/shares/{id}/certificate',
      '/v1/requests/{id}/certificate',
      '/v1/shares/{id}/certificate',
    ]);
    expect(FALLBACK_ENTRY).toBe('lambdas/http/handlers/fallback.ts');
  });

  it('authenticates by API key under /v1, by link token under /subject, by session under /app/api', () => {
    for (const route of routeList()) {
      // Under /v1 only the API's own description needs no key.
      if (route.path.startsWith('/v1/') && route.path !== '/v1/openapi.json') expect(route.scope).not.toMatch(/^(link|session|public)$/);
      if (route.path.startsWith('/subject/')) expect(route.scope).toBe('link');
      if (route.path.startsWith('/inbound/')) expect(route.scope).toBe('url_secret');
      if (route.path.startsWith('/share/')) expect(route.scope).toBe('share_link');
      if (route.path.startsWith('/app/api/') && !/sign-in|session$/.test(route.path)) expect(route.scope).toBe('session');
    }
  });
});

describe('matchRoute', () => {
  it.each(routeList().map((r) => [r.name, r] as const))('%s matches its own method and path', (_, route) => {
    const match = matchRoute(route.method, concrete(route.path));
    expect('route' in match).toBe(true);
    if (!('route' in match)) return;
    expect(match.route).toBe(route);
    expect(match.pathParameters).toEqual(parametersOf(route.path));
  });

  it('gives path parameters of the matched template', () => {
    const match = matchRoute('POST', `/v1/requests/${ID}/revoke`);
    expect(match).toEqual({ route: ROUTES.revokeRequest, pathParameters: { id: ID } });
  });

  it('decodes a percent-encoded path parameter and keeps a malformed escape as sent', () => {
    expect(matchRoute('GET', '/v1/requests/a%20b')).toMatchObject({ pathParameters: { id: 'a b' } });
    expect(matchRoute('GET', '/v1/requests/%E0%A4%A')).toMatchObject({ pathParameters: { id: '%E0%A4%A' } });
  });

  it.each([
    ['DELETE', '/v1/ping', ['GET']],
    ['POST', '/v1/ping', ['GET']],
    ['GET', '/v1/generate', ['POST']],
    ['DELETE', '/v1/requests', ['GET', 'POST']],
    ['POST', `/v1/requests/${ID}`, ['GET']],
    ['GET', `/v1/requests/${ID}/revoke`, ['POST']],
    ['DELETE', `/v1/requests/${ID}/complete`, ['POST']],
  ])('%s %s gives the allowed methods %j', (method, path, allowed) => {
    const match = matchRoute(method, path);
    expect(match).toEqual({ allowed });
  });

  it.each([
    '/v1/unknown',
    '/v2/ping',
    '/ping',
    '/v1/ping/',
    '/v1/requests/',
    `/v1/requests/${ID}/purge`,
    `/v1/requests/${ID}/revoke/extra`,
    `/v1/requests/a/b`,
    '',
  ])('an unknown path %j gives an empty allowed list', (path) => {
    expect(matchRoute('GET', path)).toEqual({ allowed: [] });
    expect(matchRoute('POST', path)).toEqual({ allowed: [] });
  });

  it('matches methods exactly (case-sensitive, as API Gateway sends them upper-case)', () => {
    expect(matchRoute('get', '/v1/ping')).toEqual({ allowed: ['GET'] });
  });

  it('does not let a path parameter span segments', () => {
    expect(matchRoute('GET', `/v1/requests/${ID}/revoke`)).toEqual({ allowed: ['POST'] });
  });
});
