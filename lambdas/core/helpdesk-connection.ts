import type { SealedSecret } from './sealing.ts';

/**
 * An integration's connection to its helpdesk's REST API: which adapter, the helpdesk's address,
 * and the credentials, sealed (the service reads them back to call the helpdesk; they are never
 * shown again). Each helpdesk the service can read is one entry of HELPDESKS below plus one
 * adapter module (lambdas/adapters/helpdesks/): another helpdesk adds both, and a credential field no
 * helpdesk had before also adds its field to the app's form and its flag to the operator CLI.
 */

/** What one helpdesk needs from the admin who connects it. */
export interface HelpdeskKind {
  /** The vendor's product name, as members read it. */
  label: string;
  /** The address form, shown in errors and forms. */
  example: string;
  /** The credential fields, all required; every one is sealed together. */
  credentials: readonly string[];
  /** Optional settings that change how a status is read, never secret. */
  settings: readonly HelpdeskSettingName[];
}

export type HelpdeskSettingName = 'closed_status_names' | 'resolved_status_ids' | 'closed_status_ids' | 'tenant';

export const HELPDESKS = {
  zendesk: { label: 'Zendesk', example: 'https://acme.zendesk.com', credentials: ['client_id', 'client_secret'], settings: [] },
  jira: { label: 'Jira Service Management', example: 'https://acme.atlassian.net', credentials: ['email', 'api_token'], settings: ['closed_status_names'] },
  halopsa: { label: 'HaloPSA', example: 'https://acme.halopsa.com', credentials: ['client_id', 'client_secret'], settings: ['tenant', 'resolved_status_ids'] },
  servicenow: { label: 'ServiceNow', example: 'https://acme.service-now.com', credentials: ['username', 'password'], settings: [] },
  zammad: { label: 'Zammad', example: 'https://acme.zammad.com', credentials: ['api_token'], settings: [] },
  freshdesk: { label: 'Freshdesk', example: 'https://acme.freshdesk.com', credentials: ['api_token'], settings: [] },
  freshservice: { label: 'Freshservice', example: 'https://acme.freshservice.com', credentials: ['api_token'], settings: [] },
  connectwise: {
    label: 'ConnectWise PSA',
    example: 'https://api-na.myconnectwise.net',
    credentials: ['company_id', 'public_key', 'private_key', 'client_id'],
    settings: [],
  },
  autotask: { label: 'Autotask', example: 'https://webservices5.autotask.net', credentials: ['integration_code', 'username', 'password'], settings: ['closed_status_ids'] },
} as const satisfies Record<string, HelpdeskKind>;

export type HelpdeskName = keyof typeof HELPDESKS;
// Pure: a bundle that never names the list drops it, and HELPDESKS with it.
export const HELPDESK_NAMES = /* @__PURE__ */ Object.keys(HELPDESKS) as HelpdeskName[];
export const isHelpdeskName = (value: unknown): value is HelpdeskName => typeof value === 'string' && Object.hasOwn(HELPDESKS, value);

/** The optional settings, as stored. */
export interface HelpdeskSettings {
  /** Jira: status names whose category is DONE that count as closed rather than resolved. */
  closedStatusNames?: string[];
  /** HaloPSA: status ids that count as resolved (a ticket that has been closed is closed whatever its status). */
  resolvedStatusIds?: number[];
  /** Autotask: status ids that count as closed (none given: 5, Complete in Autotask's defaults). */
  closedStatusIds?: number[];
  /** HaloPSA hosted: the tenant named on the token URL. */
  tenant?: string;
}

export interface HelpdeskConnection {
  adapter: HelpdeskName;
  /** The helpdesk's origin, for example https://acme.zendesk.com. */
  url: string;
  /** JSON of the credential fields (HELPDESKS[adapter].credentials), sealed with helpdeskSecretContext. */
  credentials: SealedSecret;
  settings: HelpdeskSettings;
  connectedAt: string;
}

/** The credential fields as the adapter takes them once opened. */
export type HelpdeskCredentials = Record<string, string>;

/** Where sealed helpdesk credentials belong: opening them for another integration (or as another secret) fails. */
export const helpdeskSecretContext = (integration: { orgId: string; id: string }) => ({
  orgId: integration.orgId,
  integrationId: integration.id,
  purpose: 'helpdesk_credentials',
});

/** The connection as members and the operator see it: never a credential, sealed or not. */
export const toHelpdeskView = (connection: HelpdeskConnection | null | undefined) =>
  connection
    ? {
        adapter: connection.adapter,
        label: HELPDESKS[connection.adapter].label,
        url: connection.url,
        credentials_set: true as const,
        closed_status_names: connection.settings.closedStatusNames ?? [],
        resolved_status_ids: connection.settings.resolvedStatusIds ?? [],
        closed_status_ids: connection.settings.closedStatusIds ?? [],
        tenant: connection.settings.tenant ?? null,
        connected_at: connection.connectedAt,
      }
    : null;
