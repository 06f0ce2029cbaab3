import type { Clock } from '#core/clock.ts';
import type { HelpdeskAdapter, HelpdeskConnector } from '#core/helpdesk.ts';
import { helpdeskSecretContext, type HelpdeskConnection, type HelpdeskCredentials, type HelpdeskName } from '#core/helpdesk-connection.ts';
import type { Integration } from '#core/integration.ts';
import type { SecretSealer } from '#core/sealing.ts';
import { AutotaskHelpdesk } from './autotask.ts';
import { ConnectWiseHelpdesk } from './connectwise.ts';
import { FreshdeskHelpdesk } from './freshdesk.ts';
import { FreshserviceHelpdesk } from './freshservice.ts';
import { HaloPsaHelpdesk } from './halopsa.ts';
import { JiraServiceManagementHelpdesk } from './jira-service-management.ts';
import { ServiceNowHelpdesk } from './servicenow.ts';
import { ZammadHelpdesk } from './zammad.ts';
import { ZendeskHelpdesk } from './zendesk.ts';

/** What every adapter takes beside its connection. */
export interface HelpdeskAdapterOptions {
  clock?: Clock;
  timeoutMs?: number;
  /** Plain http to 127.0.0.1: the local runtime and tests only, exactly when loopback webhook receivers are. */
  allowLoopback?: boolean;
}

/** Builds one helpdesk's adapter from its connection and opened credentials. */
export type HelpdeskAdapterFactory = (connection: Pick<HelpdeskConnection, 'url' | 'settings'>, credentials: HelpdeskCredentials, options: HelpdeskAdapterOptions) => HelpdeskAdapter;

/** The adapter module of each helpdesk; a helpdesk added to HELPDESKS (core/helpdesk-connection.ts) adds its line here. */
export const HELPDESK_ADAPTERS: Record<HelpdeskName, HelpdeskAdapterFactory> = {
  zendesk: (connection, credentials, options) =>
    new ZendeskHelpdesk({ url: connection.url, clientId: credentials.client_id!, clientSecret: credentials.client_secret! }, options),
  jira: (connection, credentials, options) =>
    new JiraServiceManagementHelpdesk(
      { url: connection.url, email: credentials.email!, apiToken: credentials.api_token!, closedStatusNames: connection.settings.closedStatusNames },
      options,
    ),
  halopsa: (connection, credentials, options) =>
    new HaloPsaHelpdesk(
      {
        url: connection.url,
        clientId: credentials.client_id!,
        clientSecret: credentials.client_secret!,
        tenant: connection.settings.tenant,
        resolvedStatusIds: connection.settings.resolvedStatusIds,
      },
      options,
    ),
  servicenow: (connection, credentials, options) => new ServiceNowHelpdesk({ url: connection.url, username: credentials.username!, password: credentials.password! }, options),
  // Zammad calls it an access token; it is stored under the form's API token field.
  zammad: (connection, credentials, options) => new ZammadHelpdesk({ url: connection.url, accessToken: credentials.api_token! }, options),
  // Freshdesk calls it an API key; it is stored under the form's API token field too.
  freshdesk: (connection, credentials, options) => new FreshdeskHelpdesk({ url: connection.url, apiKey: credentials.api_token! }, options),
  freshservice: (connection, credentials, options) => new FreshserviceHelpdesk({ url: connection.url, apiKey: credentials.api_token! }, options),
  connectwise: (connection, credentials, options) =>
    new ConnectWiseHelpdesk(
      { url: connection.url, companyId: credentials.company_id!, publicKey: credentials.public_key!, privateKey: credentials.private_key!, clientId: credentials.client_id! },
      options,
    ),
  // Autotask calls them the API user's Username (Key) and Password (Secret).
  autotask: (connection, credentials, options) =>
    new AutotaskHelpdesk(
      {
        url: connection.url,
        integrationCode: credentials.integration_code!,
        username: credentials.username!,
        secret: credentials.password!,
        closedStatusIds: connection.settings.closedStatusIds,
      },
      options,
    ),
};

/**
 * Opens sealed helpdesk credentials and keeps one adapter per integration version, so calls from
 * one warm function share the adapter's access token, and any change of the integration (a new
 * secret, a disconnect) starts afresh with a new adapter and token. Credentials are opened only
 * here and live only inside the adapter's private fields.
 */
export class SealedHelpdeskConnector implements HelpdeskConnector {
  readonly #adapters = new Map<string, { version: number; adapter: Promise<HelpdeskAdapter> }>();

  constructor(
    private readonly sealer: SecretSealer,
    private readonly options: HelpdeskAdapterOptions = {},
    private readonly factories: Record<HelpdeskName, HelpdeskAdapterFactory> = HELPDESK_ADAPTERS,
  ) {}

  adapterFor(integration: Integration): Promise<HelpdeskAdapter | null> {
    const connection = integration.helpdesk;
    if (!connection) {
      this.#adapters.delete(integration.id);
      return Promise.resolve(null);
    }
    const known = this.#adapters.get(integration.id);
    if (known && known.version === integration.version) return known.adapter;
    const adapter = this.#open(integration, connection);
    // A failed opening is not kept: the next call tries again.
    adapter.catch(() => this.#adapters.delete(integration.id));
    this.#adapters.set(integration.id, { version: integration.version, adapter });
    return adapter;
  }

  async #open(integration: Integration, connection: HelpdeskConnection): Promise<HelpdeskAdapter> {
    const opened = await this.sealer.open(connection.credentials, helpdeskSecretContext(integration));
    return this.factories[connection.adapter](connection, JSON.parse(opened) as HelpdeskCredentials, this.options);
  }
}
