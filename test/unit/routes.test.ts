import { describe, expect, it } from 'vitest';
import { matchRoute, routeList, ROUTES, FALLBACK_ENTRY } from '../../lambdas/http/routes.ts';

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
] as const;

const concrete = (template: string) => template.replace('{id}', ID);

describe('route table', () => {
  it('holds the SPEC rows with their scopes', () => {
    expect(routeList().map((r) => [r.name, r.method, r.path, r.scope])).toEqual(EXPECTED.map((row) => [...row]));
  });

  it('points every row at a handler file of its own', () => {
    const entries = routeList().map((r) => r.entry);
    expect(new Set(entries).size).toBe(entries.length);
    for (const entry of entries) expect(entry).toMatch(/^lambdas\/http\/handlers\/[a-z-]+\.ts$/);
    expect(FALLBACK_ENTRY).toBe('lambdas/http/handlers/fallback.ts');
  });
});

describe('matchRoute', () => {
  it.each(routeList().map((r) => [r.name, r] as const))('%s matches its own method and path', (_, route) => {
    const match = matchRoute(route.method, concrete(route.path));
    expect('route' in match).toBe(true);
    if (!('route' in match)) return;
    expect(match.route).toBe(route);
    expect(match.pathParameters).toEqual(route.path.includes('{id}') ? { id: ID } : {});
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
