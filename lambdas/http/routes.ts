import type { Scope } from '#core/model.ts';

/**
 * THE route table. The CDK stack makes one function and one HTTP API route from each row; the
 * local gateway dispatches from the same rows. `entry` is the handler module, relative to the
 * repository root, exporting `handler`.
 */
export interface Route {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path template as API Gateway writes it, `{id}` for a path parameter. */
  path: string;
  scope: Scope | 'any';
  entry: string;
}

const handlerFile = (name: string) => `lambdas/http/handlers/${name}.ts`;

export const ROUTES = {
  ping: { name: 'ping', method: 'GET', path: '/v1/ping', scope: 'any', entry: handlerFile('ping') },
  generate: { name: 'generate', method: 'POST', path: '/v1/generate', scope: 'any', entry: handlerFile('generate') },
  listRequests: { name: 'listRequests', method: 'GET', path: '/v1/requests', scope: 'requests:read', entry: handlerFile('list-requests') },
  createRequest: { name: 'createRequest', method: 'POST', path: '/v1/requests', scope: 'requests:write', entry: handlerFile('create-request') },
  getRequest: { name: 'getRequest', method: 'GET', path: '/v1/requests/{id}', scope: 'requests:read', entry: handlerFile('get-request') },
  revokeRequest: { name: 'revokeRequest', method: 'POST', path: '/v1/requests/{id}/revoke', scope: 'requests:write', entry: handlerFile('revoke-request') },
  completeRequest: { name: 'completeRequest', method: 'POST', path: '/v1/requests/{id}/complete', scope: 'requests:write', entry: handlerFile('complete-request') },
} as const satisfies Record<string, Route>;

export const routeList = (): Route[] => Object.values(ROUTES);

/** Answers calls that match no route: 405 where the path exists under another method, else 404. */
export const FALLBACK_ENTRY = handlerFile('fallback');

const templatePattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
const compiled = routeList().map((route) => ({ route, pattern: templatePattern(route.path) }));

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** The route for method and path, or the methods the path allows when none matches. */
export const matchRoute = (method: string, path: string): RouteMatch | { allowed: string[] } => {
  const allowed: string[] = [];
  for (const { route, pattern } of compiled) {
    const match = pattern.exec(path);
    if (!match) continue;
    if (route.method === method) {
      const pathParameters: Record<string, string> = {};
      for (const [name, value] of Object.entries(match.groups ?? {})) pathParameters[name] = safeDecode(value);
      return { route, pathParameters };
    }
    allowed.push(route.method);
  }
  return { allowed };
};

/** A malformed escape stays as sent; validation then refuses it instead of the router crashing. */
const safeDecode = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};
