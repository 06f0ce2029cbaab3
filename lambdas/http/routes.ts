import { API_ROUTES, CERTIFICATE_ENTRY, handlerFile, type Route } from './api-routes.ts';

export { CERTIFICATE_ENTRY, type Route } from './api-routes.ts';

/**
 * THE route table. The CDK stack makes one function and one HTTP API route from each row; the
 * local gateway dispatches from the same rows. `entry` is the handler module, relative to the
 * repository root, exporting `handler`. The /v1 rows are in api-routes.ts.
 */
const subjectFile = (name: string) => `lambdas/http/subject/${name}.ts`;

export const ROUTES = {
  ...API_ROUTES,

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
  appCreateRequest: { name: 'appCreateRequest', method: 'POST', path: '/app/api/requests', scope: 'session', entry: 'lambdas/http/app/create-request.ts', sends: ['email', 'sms'] },
  appRecipientKeys: { name: 'appRecipientKeys', method: 'GET', path: '/app/api/recipient-keys', scope: 'session', entry: 'lambdas/http/app/recipient-keys.ts' },
  appRequestOptions: { name: 'appRequestOptions', method: 'GET', path: '/app/api/request-options', scope: 'session', entry: 'lambdas/http/app/request-options.ts' },
  appRequest: { name: 'appRequest', method: 'GET', path: '/app/api/requests/{id}', scope: 'session', entry: 'lambdas/http/app/request.ts' },
  appReveal: { name: 'appReveal', method: 'POST', path: '/app/api/requests/{id}/reveal', scope: 'session', entry: 'lambdas/http/app/reveal.ts' },
  appComplete: { name: 'appComplete', method: 'POST', path: '/app/api/requests/{id}/complete', scope: 'session', entry: 'lambdas/http/app/complete.ts' },
  appRevokeRequest: { name: 'appRevokeRequest', method: 'POST', path: '/app/api/requests/{id}/revoke', scope: 'session', entry: 'lambdas/http/app/revoke-request.ts' },
  appRelinkRequest: { name: 'appRelinkRequest', method: 'POST', path: '/app/api/requests/{id}/relink', scope: 'session', entry: 'lambdas/http/app/relink-request.ts' },
  appRequestCertificate: { name: 'appRequestCertificate', method: 'GET', path: '/app/api/requests/{id}/certificate', scope: 'session', entry: CERTIFICATE_ENTRY },
  appShares: { name: 'appShares', method: 'GET', path: '/app/api/shares', scope: 'session', entry: 'lambdas/http/app/shares.ts' },
  appCreateShare: { name: 'appCreateShare', method: 'POST', path: '/app/api/shares', scope: 'session', entry: 'lambdas/http/app/create-share.ts' },
  appShare: { name: 'appShare', method: 'GET', path: '/app/api/shares/{id}', scope: 'session', entry: 'lambdas/http/app/share.ts' },
  appPurgeShare: { name: 'appPurgeShare', method: 'POST', path: '/app/api/shares/{id}/purge', scope: 'session', entry: 'lambdas/http/app/purge-share.ts' },
  appShareCertificate: { name: 'appShareCertificate', method: 'GET', path: '/app/api/shares/{id}/certificate', scope: 'session', entry: CERTIFICATE_ENTRY },
  appAudit: { name: 'appAudit', method: 'GET', path: '/app/api/audit', scope: 'session', entry: 'lambdas/http/app/audit.ts' },
  appMembers: { name: 'appMembers', method: 'GET', path: '/app/api/members', scope: 'session', entry: 'lambdas/http/app/members.ts' },
  appApproveKey: { name: 'appApproveKey', method: 'POST', path: '/app/api/members/{id}/approve-key', scope: 'session', entry: 'lambdas/http/app/replaced-key.ts' },
  appRefuseKey: { name: 'appRefuseKey', method: 'POST', path: '/app/api/members/{id}/refuse-key', scope: 'session', entry: 'lambdas/http/app/replaced-key.ts' },
  // Organisation settings (owners and admins): members invited, their role, disabled and enabled; clients and teams.
  appInviteMember: { name: 'appInviteMember', method: 'POST', path: '/app/api/members', scope: 'session', entry: 'lambdas/http/app/invite-member.ts', sends: ['email'] },
  appMemberRole: { name: 'appMemberRole', method: 'POST', path: '/app/api/members/{id}/role', scope: 'session', entry: 'lambdas/http/app/member-role.ts' },
  appDisableMember: { name: 'appDisableMember', method: 'POST', path: '/app/api/members/{id}/disable', scope: 'session', entry: 'lambdas/http/app/member-active.ts' },
  appEnableMember: { name: 'appEnableMember', method: 'POST', path: '/app/api/members/{id}/enable', scope: 'session', entry: 'lambdas/http/app/member-active.ts' },
  appClients: { name: 'appClients', method: 'GET', path: '/app/api/clients', scope: 'session', entry: 'lambdas/http/app/clients.ts' },
  appCreateClient: { name: 'appCreateClient', method: 'POST', path: '/app/api/clients', scope: 'session', entry: 'lambdas/http/app/create-client.ts' },
  appRenameClient: { name: 'appRenameClient', method: 'POST', path: '/app/api/clients/{id}', scope: 'session', entry: 'lambdas/http/app/rename-client.ts' },
  appTeams: { name: 'appTeams', method: 'GET', path: '/app/api/teams', scope: 'session', entry: 'lambdas/http/app/teams.ts' },
  appCreateTeam: { name: 'appCreateTeam', method: 'POST', path: '/app/api/teams', scope: 'session', entry: 'lambdas/http/app/create-team.ts' },
  appChangeTeam: { name: 'appChangeTeam', method: 'POST', path: '/app/api/teams/{id}', scope: 'session', entry: 'lambdas/http/app/change-team.ts' },
  appWebhooks: { name: 'appWebhooks', method: 'GET', path: '/app/api/webhooks', scope: 'session', entry: 'lambdas/http/app/webhooks.ts' },
  // Where POST /app/api/webhooks' Location leads: one subscription, served by the list's function.
  appWebhook: { name: 'appWebhook', method: 'GET', path: '/app/api/webhooks/{id}', scope: 'session', entry: 'lambdas/http/app/webhooks.ts' },
  appCreateWebhook: { name: 'appCreateWebhook', method: 'POST', path: '/app/api/webhooks', scope: 'session', entry: 'lambdas/http/app/create-webhook.ts' },
  appDeleteWebhook: { name: 'appDeleteWebhook', method: 'POST', path: '/app/api/webhooks/{id}/delete', scope: 'session', entry: 'lambdas/http/app/delete-webhook.ts' },
  appPingWebhook: { name: 'appPingWebhook', method: 'POST', path: '/app/api/webhooks/{id}/ping', scope: 'session', entry: 'lambdas/http/app/ping-webhook.ts' },
  appWebhookDeliveries: { name: 'appWebhookDeliveries', method: 'GET', path: '/app/api/webhooks/{id}/deliveries', scope: 'session', entry: 'lambdas/http/app/webhook-deliveries.ts' },
  appRedeliverWebhook: { name: 'appRedeliverWebhook', method: 'POST', path: '/app/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', scope: 'session', entry: 'lambdas/http/app/redeliver-webhook.ts' },
  appRotateWebhookSecret: { name: 'appRotateWebhookSecret', method: 'POST', path: '/app/api/webhooks/{id}/rotate-secret', scope: 'session', entry: 'lambdas/http/app/rotate-webhook-secret.ts' },
  appApiKeys: { name: 'appApiKeys', method: 'GET', path: '/app/api/keys', scope: 'session', entry: 'lambdas/http/app/api-keys.ts' },
  appCreateApiKey: { name: 'appCreateApiKey', method: 'POST', path: '/app/api/keys', scope: 'session', entry: 'lambdas/http/app/create-api-key.ts' },
  appRevokeApiKey: { name: 'appRevokeApiKey', method: 'POST', path: '/app/api/keys/{id}/revoke', scope: 'session', entry: 'lambdas/http/app/revoke-api-key.ts' },
  // The organisation's policy, templates and presets (owners and admins).
  appOrganisationPolicy: { name: 'appOrganisationPolicy', method: 'GET', path: '/app/api/organisation/policy', scope: 'session', entry: 'lambdas/http/app/organisation-policy.ts' },
  appChangeOrganisationPolicy: { name: 'appChangeOrganisationPolicy', method: 'POST', path: '/app/api/organisation/policy', scope: 'session', entry: 'lambdas/http/app/change-organisation-policy.ts' },
  appTemplates: { name: 'appTemplates', method: 'GET', path: '/app/api/templates', scope: 'session', entry: 'lambdas/http/app/templates.ts' },
  appCreateTemplate: { name: 'appCreateTemplate', method: 'POST', path: '/app/api/templates', scope: 'session', entry: 'lambdas/http/app/create-template.ts' },
  appPresets: { name: 'appPresets', method: 'GET', path: '/app/api/presets', scope: 'session', entry: 'lambdas/http/app/presets.ts' },
  appSavePreset: { name: 'appSavePreset', method: 'POST', path: '/app/api/presets', scope: 'session', entry: 'lambdas/http/app/save-preset.ts' },
  appSetDefaultPreset: { name: 'appSetDefaultPreset', method: 'POST', path: '/app/api/default-preset', scope: 'session', entry: 'lambdas/http/app/set-default-preset.ts' },
  appIntegrations: { name: 'appIntegrations', method: 'GET', path: '/app/api/integrations', scope: 'session', entry: 'lambdas/http/app/integrations.ts' },
  appConnectIntegration: { name: 'appConnectIntegration', method: 'POST', path: '/app/api/integrations', scope: 'session', entry: 'lambdas/http/app/connect-integration.ts' },
  appIntegration: { name: 'appIntegration', method: 'GET', path: '/app/api/integrations/{id}', scope: 'session', entry: 'lambdas/http/app/integration.ts' },
  appConfigureIntegration: { name: 'appConfigureIntegration', method: 'POST', path: '/app/api/integrations/{id}', scope: 'session', entry: 'lambdas/http/app/configure-integration.ts' },
  appRotateIntegration: { name: 'appRotateIntegration', method: 'POST', path: '/app/api/integrations/{id}/rotate', scope: 'session', entry: 'lambdas/http/app/rotate-integration.ts' },
  appConnectHelpdesk: { name: 'appConnectHelpdesk', method: 'POST', path: '/app/api/integrations/{id}/helpdesk', scope: 'session', entry: 'lambdas/http/app/connect-helpdesk.ts' },
  appCheckHelpdesk: { name: 'appCheckHelpdesk', method: 'POST', path: '/app/api/integrations/{id}/helpdesk/check', scope: 'session', entry: 'lambdas/http/app/check-helpdesk.ts' },
  appIntegrationActivity: { name: 'appIntegrationActivity', method: 'GET', path: '/app/api/integrations/{id}/activity', scope: 'session', entry: 'lambdas/http/app/integration-activity.ts' },

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
