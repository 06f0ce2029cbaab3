import type { Scope } from '#core/model.ts';

/**
 * THE route table. The CDK stack makes one function and one HTTP API route from each row; the
 * local gateway dispatches from the same rows. `entry` is the handler module, relative to the
 * repository root, exporting `handler`.
 */
export interface Route {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path template as API Gateway writes it: `{id}` for a path parameter, `{path+}` for the rest of the path. */
  path: string;
  /**
   * Who may call: an API key with this scope (or any scope), the subject's link token (`link`), a
   * signed-in member's session (`session`), the secret in an inbound ticket URL (`url_secret`), or
   * anyone (`public`: pages, sign-in).
   */
  scope: Scope | 'any' | 'link' | 'share_link' | 'session' | 'url_secret' | 'public';
  entry: string;
  /** Outbound messages the handler sends, so the stack grants exactly those rights. */
  sends?: ReadonlyArray<'email' | 'sms'>;
}

const handlerFile = (name: string) => `lambdas/http/handlers/${name}.ts`;
const subjectFile = (name: string) => `lambdas/http/subject/${name}.ts`;
/** One function serves every certificate route, so only it bundles the PDF renderer. */
export const CERTIFICATE_ENTRY = 'lambdas/http/certificates/handler.ts';

export const ROUTES = {
  ping: { name: 'ping', method: 'GET', path: '/v1/ping', scope: 'any', entry: handlerFile('ping') },
  generate: { name: 'generate', method: 'POST', path: '/v1/generate', scope: 'any', entry: handlerFile('generate') },
  listRequests: { name: 'listRequests', method: 'GET', path: '/v1/requests', scope: 'requests:read', entry: handlerFile('list-requests') },
  createRequest: { name: 'createRequest', method: 'POST', path: '/v1/requests', scope: 'requests:write', entry: handlerFile('create-request'), sends: ['email', 'sms'] },
  getRequest: { name: 'getRequest', method: 'GET', path: '/v1/requests/{id}', scope: 'requests:read', entry: handlerFile('get-request') },
  revokeRequest: { name: 'revokeRequest', method: 'POST', path: '/v1/requests/{id}/revoke', scope: 'requests:write', entry: handlerFile('revoke-request') },
  completeRequest: { name: 'completeRequest', method: 'POST', path: '/v1/requests/{id}/complete', scope: 'requests:write', entry: handlerFile('complete-request') },

  markTicketStatus: { name: 'markTicketStatus', method: 'POST', path: '/v1/tickets/{ref}/status', scope: 'tickets:write', entry: handlerFile('ticket-status') },

  requestCertificate: { name: 'requestCertificate', method: 'GET', path: '/v1/requests/{id}/certificate', scope: 'events:read', entry: CERTIFICATE_ENTRY },
  shareCertificate: { name: 'shareCertificate', method: 'GET', path: '/v1/shares/{id}/certificate', scope: 'events:read', entry: CERTIFICATE_ENTRY },

  listEvents: { name: 'listEvents', method: 'GET', path: '/v1/events', scope: 'events:read', entry: handlerFile('list-events') },
  listWebhooks: { name: 'listWebhooks', method: 'GET', path: '/v1/webhooks', scope: 'webhooks:write', entry: handlerFile('list-webhooks') },
  createWebhook: { name: 'createWebhook', method: 'POST', path: '/v1/webhooks', scope: 'webhooks:write', entry: handlerFile('create-webhook') },
  deleteWebhook: { name: 'deleteWebhook', method: 'DELETE', path: '/v1/webhooks/{id}', scope: 'webhooks:write', entry: handlerFile('delete-webhook') },

  // The subject's link page and its endpoints (docs/web-api.md).
  subjectRequest: { name: 'subjectRequest', method: 'GET', path: '/subject/request', scope: 'link', entry: subjectFile('describe') },
  subjectOpen: { name: 'subjectOpen', method: 'POST', path: '/subject/open', scope: 'link', entry: subjectFile('open') },
  subjectEmailCode: { name: 'subjectEmailCode', method: 'POST', path: '/subject/email-code', scope: 'link', entry: subjectFile('email-code'), sends: ['email'] },
  subjectVerify: { name: 'subjectVerify', method: 'POST', path: '/subject/verify', scope: 'link', entry: subjectFile('verify') },
  subjectSubmit: { name: 'subjectSubmit', method: 'POST', path: '/subject/submit', scope: 'link', entry: subjectFile('submit') },
  subjectReport: { name: 'subjectReport', method: 'POST', path: '/subject/report', scope: 'link', entry: subjectFile('report') },

  // The member application's endpoints (docs/web-api.md, Member endpoints).
  appSignIn: { name: 'appSignIn', method: 'POST', path: '/app/api/sign-in', scope: 'public', entry: 'lambdas/http/app/sign-in.ts', sends: ['email'] },
  appSession: { name: 'appSession', method: 'POST', path: '/app/api/session', scope: 'public', entry: 'lambdas/http/app/session.ts' },
  appSignOut: { name: 'appSignOut', method: 'POST', path: '/app/api/sign-out', scope: 'session', entry: 'lambdas/http/app/sign-out.ts' },
  appMe: { name: 'appMe', method: 'GET', path: '/app/api/me', scope: 'session', entry: 'lambdas/http/app/me.ts' },
  appIdentityKey: { name: 'appIdentityKey', method: 'POST', path: '/app/api/identity-key', scope: 'session', entry: 'lambdas/http/app/identity-key.ts' },
  appRequests: { name: 'appRequests', method: 'GET', path: '/app/api/requests', scope: 'session', entry: 'lambdas/http/app/requests.ts' },
  appRequest: { name: 'appRequest', method: 'GET', path: '/app/api/requests/{id}', scope: 'session', entry: 'lambdas/http/app/request.ts' },
  appReveal: { name: 'appReveal', method: 'POST', path: '/app/api/requests/{id}/reveal', scope: 'session', entry: 'lambdas/http/app/reveal.ts' },
  appComplete: { name: 'appComplete', method: 'POST', path: '/app/api/requests/{id}/complete', scope: 'session', entry: 'lambdas/http/app/complete.ts' },
  appRequestCertificate: { name: 'appRequestCertificate', method: 'GET', path: '/app/api/requests/{id}/certificate', scope: 'session', entry: CERTIFICATE_ENTRY },
  appShares: { name: 'appShares', method: 'GET', path: '/app/api/shares', scope: 'session', entry: 'lambdas/http/app/shares.ts' },
  appCreateShare: { name: 'appCreateShare', method: 'POST', path: '/app/api/shares', scope: 'session', entry: 'lambdas/http/app/create-share.ts' },
  appShare: { name: 'appShare', method: 'GET', path: '/app/api/shares/{id}', scope: 'session', entry: 'lambdas/http/app/share.ts' },
  appPurgeShare: { name: 'appPurgeShare', method: 'POST', path: '/app/api/shares/{id}/purge', scope: 'session', entry: 'lambdas/http/app/purge-share.ts' },
  appShareCertificate: { name: 'appShareCertificate', method: 'GET', path: '/app/api/shares/{id}/certificate', scope: 'session', entry: CERTIFICATE_ENTRY },
  appMembers: { name: 'appMembers', method: 'GET', path: '/app/api/members', scope: 'session', entry: 'lambdas/http/app/members.ts' },
  appApproveKey: { name: 'appApproveKey', method: 'POST', path: '/app/api/members/{id}/approve-key', scope: 'session', entry: 'lambdas/http/app/approve-key.ts' },

  // A share's recipient page endpoints (docs/web-api.md, Shares).
  shareDescribe: { name: 'shareDescribe', method: 'GET', path: '/share/describe', scope: 'share_link', entry: 'lambdas/http/share/describe.ts' },
  shareOpen: { name: 'shareOpen', method: 'POST', path: '/share/open', scope: 'share_link', entry: 'lambdas/http/share/open.ts' },

  // The certificate signing keys, current and retired (RFC 7517), for verify-custody-certificate.
  jwks: { name: 'jwks', method: 'GET', path: '/.well-known/jwks.json', scope: 'public', entry: 'lambdas/http/certificates/jwks.ts' },

  // The inbound ticket URLs of a ticketing integration, outside /v1 (SPEC.md, Inbound generic ticket webhook).
  inboundTicketStatus: { name: 'inboundTicketStatus', method: 'POST', path: '/inbound/ticket-status/{secret}', scope: 'url_secret', entry: 'lambdas/http/inbound/status.ts' },
  inboundTicketTrigger: { name: 'inboundTicketTrigger', method: 'POST', path: '/inbound/ticket-trigger/{secret}', scope: 'url_secret', entry: 'lambdas/http/inbound/trigger.ts', sends: ['email', 'sms'] },

  // The pages and their assets: one static function (docs/web-api.md, "Pages").
  pageSubject: { name: 'pageSubject', method: 'GET', path: '/r/{token}', scope: 'public', entry: 'lambdas/http/static/serve.ts' },
  pageShare: { name: 'pageShare', method: 'GET', path: '/s/{token}', scope: 'public', entry: 'lambdas/http/static/serve.ts' },
  pageApp: { name: 'pageApp', method: 'GET', path: '/app', scope: 'public', entry: 'lambdas/http/static/serve.ts' },
  pageAppDeep: { name: 'pageAppDeep', method: 'GET', path: '/app/{path+}', scope: 'public', entry: 'lambdas/http/static/serve.ts' },
  assets: { name: 'assets', method: 'GET', path: '/assets/{file}', scope: 'public', entry: 'lambdas/http/static/serve.ts' },
} as const satisfies Record<string, Route>;

export const routeList = (): Route[] => Object.values(ROUTES);

/** Answers calls that match no route: 405 where the path exists under another method, else 404. */
export const FALLBACK_ENTRY = handlerFile('fallback');

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
const templatePattern = (path: string) =>
  new RegExp(
    `^${path
      .split(/(\{\w+\+?\})/)
      .map((part) => {
        const parameter = /^\{(\w+)(\+?)\}$/.exec(part);
        if (!parameter) return escapeRegExp(part);
        return parameter[2] ? `(?<${parameter[1]}>.+)` : `(?<${parameter[1]}>[^/]+)`;
      })
      .join('')}$`,
  );
/** Greedy `{name+}` routes last, so a more specific route wins, as in API Gateway. */
const compiled = routeList()
  .map((route) => ({ route, pattern: templatePattern(route.path) }))
  .sort((a, b) => Number(a.route.path.includes('+}')) - Number(b.route.path.includes('+}')));

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
    if (!allowed.includes(route.method)) allowed.push(route.method);
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
