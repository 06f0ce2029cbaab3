import type { AuditType } from '../../audit-types.ts';
import { characterCount } from '../../characters.ts';
import type { Clock } from '../../clock.ts';
import { notFound, retryOnConflict, validationFailed, type FieldErrors } from '../../errors.ts';
import { HelpdeskCallFailed, type HelpdeskConnector } from '../../helpdesk.ts';
import {
  HELPDESK_NAMES,
  HELPDESKS,
  helpdeskSecretContext,
  isHelpdeskName,
  toHelpdeskView,
  type HelpdeskConnection,
  type HelpdeskSettings,
} from '../../helpdesk-connection.ts';
import { toIntegrationView, type Integration, type IntegrationRepository } from '../../integration.ts';
import type { Actor } from '../../model.ts';
import { organisationAudit } from '../../organisation-audit.ts';
import type { Directory } from '../../ports.ts';
import type { SecretSealer } from '../../sealing.ts';
import { countsAsClosed } from '../../ticket-lifecycle.ts';
import { checkWebhookUrl, type WebhookUrlOptions } from '../../webhook-url.ts';

export interface HelpdeskConnectDeps {
  integrations: IntegrationRepository;
  sealer: SecretSealer;
  clock: Clock;
  /** The webhook targets' rules apply to helpdesk addresses too (loopback only locally). */
  webhookPolicy: WebhookUrlOptions;
}

/** What an admin gives to connect an integration to its helpdesk (`adapter: 'none'` disconnects). */
export interface HelpdeskConnectInput {
  adapter: string;
  url?: string;
  /** The fields HELPDESKS[adapter].credentials names, by those names. */
  credentials?: Record<string, string | undefined>;
  closedStatusNames?: string[];
  resolvedStatusIds?: number[];
  closedStatusIds?: number[];
  tenant?: string | null;
}

const MAX_CREDENTIAL_LENGTH = 2_000;
const PRINTABLE = /^[\x21-\x7e]+$/;
const TENANT = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The helpdesk's origin, or why it cannot be one: https to a public host as for webhook targets
 * (SPEC.md, POST /webhooks), the site address only; `http://127.0.0.1:PORT` exactly when loopback
 * receivers are allowed (the local runtime and tests).
 */
export const helpdeskUrlOf = (input: string, policy: WebhookUrlOptions): { ok: true; url: string } | { ok: false; reason: string } => {
  if (!URL.canParse(input)) return { ok: false, reason: 'Must be an absolute https URL.' };
  const url = new URL(input);
  if (url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    return { ok: false, reason: 'Must be the helpdesk site address only, with no path, for example https://acme.zendesk.com.' };
  }
  if (policy.allowLoopback && url.protocol === 'http:' && url.hostname === '127.0.0.1' && !url.username && !url.password) return { ok: true, url: url.origin };
  const check = checkWebhookUrl(input, { allowLoopback: false });
  return check.ok ? { ok: true, url: new URL(check.url).origin } : check;
};

const settingsOf = (adapter: keyof typeof HELPDESKS, input: HelpdeskConnectInput, errors: FieldErrors): HelpdeskSettings => {
  const allowed: readonly string[] = HELPDESKS[adapter].settings;
  const settings: HelpdeskSettings = {};
  const refuse = (field: string) => (errors[field] = [`${HELPDESKS[adapter].label} takes no ${field}.`]);
  if (input.closedStatusNames && input.closedStatusNames.length > 0) {
    if (!allowed.includes('closed_status_names')) refuse('closed_status_names');
    else if (input.closedStatusNames.length > 20 || input.closedStatusNames.some((name) => name.trim().length < 1 || name.length > 100)) {
      errors.closed_status_names = ['Give at most 20 status names of 1 to 100 characters.'];
    } else settings.closedStatusNames = input.closedStatusNames.map((name) => name.trim());
  }
  // Status id lists (HaloPSA's resolved ones, Autotask's closed ones) are judged alike.
  const statusIds = (field: 'resolved_status_ids' | 'closed_status_ids', ids: number[] | undefined): number[] | undefined => {
    if (!ids || ids.length === 0) return undefined;
    if (!allowed.includes(field)) refuse(field);
    else if (ids.length > 20 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) errors[field] = ['Give at most 20 status ids, each a positive whole number.'];
    else return [...ids];
    return undefined;
  };
  const resolvedStatusIds = statusIds('resolved_status_ids', input.resolvedStatusIds);
  if (resolvedStatusIds) settings.resolvedStatusIds = resolvedStatusIds;
  const closedStatusIds = statusIds('closed_status_ids', input.closedStatusIds);
  if (closedStatusIds) settings.closedStatusIds = closedStatusIds;
  if (input.tenant) {
    if (!allowed.includes('tenant')) refuse('tenant');
    else if (!TENANT.test(input.tenant)) errors.tenant = ['Letters, digits, ".", "_" and "-", at most 100.'];
    else settings.tenant = input.tenant;
  }
  return settings;
};

/**
 * A password is taken as typed, spaces included (a passphrase), untrimmed: any printable ASCII.
 * Nothing beyond ASCII, since some helpdesks take it in a header of its own, which only carries
 * ASCII safely.
 */
const PASSWORD = /^[\x20-\x7e]+$/;

/** The credentials a Basic user name is made of (ConnectWise's is `company_id+public_key`). */
const BASIC_USER_NAME_PARTS: ReadonlySet<string> = new Set(['username', 'email', 'company_id', 'public_key']);

/** Why a credential as given cannot be used, or null; each is judged by what it is sent as. */
const credentialProblem = (field: string, value: string): string | null => {
  if (field === 'password') {
    return value.length <= MAX_CREDENTIAL_LENGTH && PASSWORD.test(value) ? null : `Must be 1 to ${MAX_CREDENTIAL_LENGTH} printable ASCII characters.`;
  }
  if (value.length > MAX_CREDENTIAL_LENGTH || !PRINTABLE.test(value)) return `Must be 1 to ${MAX_CREDENTIAL_LENGTH} printable characters without spaces.`;
  // HTTP Basic (RFC 7617) ends the user name at the first colon: the rest would be read as the password.
  if (BASIC_USER_NAME_PARTS.has(field) && value.includes(':')) return 'Must not contain ":": Basic authentication ends a user name at the first colon.';
  return null;
};

const credentialsOf = (adapter: keyof typeof HELPDESKS, input: HelpdeskConnectInput, errors: FieldErrors): Record<string, string> => {
  const credentials: Record<string, string> = {};
  for (const field of HELPDESKS[adapter].credentials) {
    const given = input.credentials?.[field];
    const value = field === 'password' ? given : given?.trim();
    const problem = value ? credentialProblem(field, value) : `Required to connect ${HELPDESKS[adapter].label}.`;
    if (problem) errors[field] = [problem];
    else credentials[field] = value!;
  }
  return credentials;
};

const audit = (integration: Integration, actor: Actor, type: AuditType, details: Record<string, unknown>) =>
  organisationAudit(integration.orgId, actor, type, { details: { integration_id: integration.id, name: integration.name, ...details } }, integration.clientId);

const requireIntegration = async (deps: { integrations: Pick<IntegrationRepository, 'get'> }, orgId: string, integrationId: string) => {
  const integration = await deps.integrations.get(orgId, integrationId);
  if (!integration) throw notFound('No such integration.');
  return integration;
};

/**
 * Connects an integration to its helpdesk's API, replacing any connection it had, or disconnects
 * it (`none`). The credentials are sealed before they are stored and never shown again; the audit
 * entry names the helpdesk and its address only. A disconnect deletes the sealed credentials, and
 * adapters built for the old connection (with their cached tokens) are dropped as the version moves.
 * `prepared` is given the answer just before a change is stored (a caller's Idempotency-Key keeps it
 * in that transaction, so a retry after a lost answer does not connect again).
 */
export const connectHelpdesk = (
  deps: HelpdeskConnectDeps,
  actor: Actor,
  orgId: string,
  integrationId: string,
  input: HelpdeskConnectInput,
  prepared?: (view: ReturnType<typeof toIntegrationView>) => void,
) =>
  retryOnConflict(async () => {
    const before = await requireIntegration(deps, orgId, integrationId);
    const at = deps.clock.now().toISOString();
    if (input.adapter === 'none') {
      const after: Integration = { ...before, helpdesk: null, updatedAt: at };
      if (before.helpdesk) {
        prepared?.(toIntegrationView(after));
        await deps.integrations.replace(before, after, audit(after, actor, 'integration.helpdesk_disconnected', { adapter: before.helpdesk.adapter, url: before.helpdesk.url }));
      }
      return toIntegrationView(after);
    }
    const errors: FieldErrors = Object.create(null);
    if (!isHelpdeskName(input.adapter)) {
      throw validationFailed({ adapter: [`Must be one of ${[...HELPDESK_NAMES, 'none'].join(', ')}.`] });
    }
    const adapter = input.adapter;
    const url = input.url === undefined ? ({ ok: false, reason: 'Required.' } as const) : helpdeskUrlOf(input.url, deps.webhookPolicy);
    if (!url.ok) errors.helpdesk_url = [url.reason];
    const credentials = credentialsOf(adapter, input, errors);
    const settings = settingsOf(adapter, input, errors);
    if (Object.keys(errors).length > 0 || !url.ok) throw validationFailed(errors);
    const connection: HelpdeskConnection = {
      adapter,
      url: url.url,
      credentials: await deps.sealer.seal(JSON.stringify(credentials), helpdeskSecretContext(before)),
      settings,
      connectedAt: at,
    };
    const after: Integration = { ...before, helpdesk: connection, updatedAt: at };
    prepared?.(toIntegrationView(after));
    await deps.integrations.replace(before, after, audit(after, actor, 'integration.helpdesk_connected', { adapter, url: connection.url }));
    return toIntegrationView(after);
  });

export interface HelpdeskCheckDeps {
  integrations: Pick<IntegrationRepository, 'get'>;
  directory: Pick<Directory, 'getOrganisation'>;
  helpdesks: HelpdeskConnector;
}

/**
 * Reads one ticket through the integration's helpdesk connection, as the verified close will:
 * the vendor's status, the status it maps to, and whether the organisation's policy counts it as
 * closed; or the reason the read failed. Changes nothing.
 */
export const checkHelpdeskTicket = async (deps: HelpdeskCheckDeps, orgId: string, integrationId: string, ticketId: string) => {
  const trimmed = ticketId.trim();
  // Characters as the app's field counts them (code points, characters.ts), not UTF-16 units.
  if (trimmed.length < 1 || characterCount(trimmed) > 120) throw validationFailed({ ticket: ['Must be 1 to 120 characters.'] });
  const [integration, org] = await Promise.all([requireIntegration(deps, orgId, integrationId), deps.directory.getOrganisation(orgId)]);
  if (!integration.helpdesk || !org) throw validationFailed({ ticket: ['This integration is not connected to a helpdesk.'] });
  const helpdesk = toHelpdeskView(integration.helpdesk)!;
  try {
    const adapter = await deps.helpdesks.adapterFor(integration);
    // Disconnected between the two reads: as unconnected as before.
    if (!adapter) throw validationFailed({ ticket: ['This integration is not connected to a helpdesk.'] });
    const ticket = await adapter.readTicket(trimmed);
    return {
      ok: true as const,
      helpdesk: helpdesk.adapter,
      ticket_id: ticket.externalId,
      vendor_status: ticket.vendorStatus,
      status: ticket.state,
      counts_as_closed: countsAsClosed(ticket.state, org.policy.ticket),
      read_at: ticket.readAt,
    };
  } catch (error) {
    if (!(error instanceof HelpdeskCallFailed)) throw error;
    return { ok: false as const, helpdesk: helpdesk.adapter, ticket_id: trimmed, reason: error.reason, message: error.message, retry_after_seconds: error.retryAfterSeconds ?? null };
  }
};
