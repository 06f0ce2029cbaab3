import { toHelpdeskView, type HelpdeskConnection } from './helpdesk-connection.ts';
import type { FieldMapping } from './inbound/mapping.ts';
import type { InboundAuthMode, RecipeName } from './inbound/recipes.ts';
import type { StatusMap } from './inbound/status-words.ts';
import type { Actor } from './model.ts';
import type { AuditEntryInput } from './ports.ts';
import type { SealedSecret } from './sealing.ts';

/** SPEC.md leaves the inbound limit open: 120 posts a minute per integration, settable per integration. */
export const DEFAULT_INBOUND_RATE_LIMIT = 120;
export const MAX_INBOUND_RATE_LIMIT = 10_000;

/** Which of an integration's two URLs a post came to. */
export type InboundPurpose = 'status' | 'trigger';

/** A generic ticketing integration (SPEC.md, Inbound generic ticket webhook). */
export interface Integration {
  id: string;
  orgId: string;
  name: string;
  kind: 'generic';
  enabled: boolean;
  /** Set: the integration's tickets and requests belong to this client only. */
  clientId: string | null;
  /** The helpdesk recipe it was connected or configured with, if any. */
  recipe: RecipeName | null;
  mapping: FieldMapping;
  statusMap: StatusMap;
  /**
   * The optional hardening of both URLs. `secret` is the shared header's value or the signing
   * secret, sealed (never plain text in the table): the service must read it back to check posts.
   */
  auth: { mode: InboundAuthMode; headerName: string | null; secret: SealedSecret | null };
  /** The trigger's preset when the post names none, before the client's and the organisation's. */
  defaultPreset: string | null;
  rateLimitPerMinute: number;
  /**
   * The helpdesk's REST API, when connected: a closing status of a ticket linked through this
   * integration is then read back from the helpdesk before anything is destroyed, and the link can
   * be posted into the ticket. Absent on integrations stored before adapters existed (= none).
   */
  helpdesk?: HelpdeskConnection | null;
  /** SHA-256 of each URL's secret; the secrets themselves are shown once and never stored. */
  secretHashes: Record<InboundPurpose, string>;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/**
 * A status sent through an integration's URL met a newer version of the integration when it was
 * to be written (disabled, remapped, rotated or hardened since it was read): the post must be
 * judged again under `integration` (null: gone).
 */
export class IntegrationChanged extends Error {
  override readonly name = 'IntegrationChanged';
  constructor(readonly integration: Integration | null) {
    super('The integration changed while its post was handled.');
  }
}

/** Reads the integration again: IntegrationChanged when it is no longer at the version `read` was at. */
export const assertIntegrationUnchanged = async (integrations: Pick<IntegrationRepository, 'get'>, orgId: string, read: { id: string; version: number }) => {
  const integration = await integrations.get(orgId, read.id);
  if (integration?.version !== read.version) throw new IntegrationChanged(integration);
};

/**
 * An inbound post that could not be used, or a helpdesk call that failed (`helpdesk`), as the
 * integration's activity view lists it.
 */
export interface IntegrationActivity {
  at: string;
  purpose: InboundPurpose | 'helpdesk';
  reason: string;
  ticketId: string | null;
  statusWord: string | null;
}

/** Where an inbound URL's secret leads. */
export interface InboundSecretTarget {
  orgId: string;
  integrationId: string;
  purpose: InboundPurpose;
}

export interface IntegrationRepository {
  get(orgId: string, integrationId: string): Promise<Integration | null>;
  list(orgId: string): Promise<Integration[]>;
  findBySecretHash(secretHash: string): Promise<InboundSecretTarget | null>;
  /** Stores a new integration, its two URL look-ups and the audit entry in one transaction. */
  create(integration: Integration, audit: AuditEntryInput): Promise<unknown>;
  /**
   * Replaces `before` with `after` if nobody changed it meanwhile (else WriteConflict); when the
   * URL secrets changed, the old look-ups are deleted and the new ones written in the same transaction.
   * With `policyVersion`, also on condition that the organisation's rules (its plan among them) are
   * still those read at that version.
   */
  replace(before: Integration, after: Integration, audit: AuditEntryInput, policyVersion?: number): Promise<unknown>;
  recordActivity(integrationId: string, activity: IntegrationActivity): Promise<void>;
  /** Newest first, at most the cap, none older than the retention. */
  activity(integrationId: string, now: Date): Promise<IntegrationActivity[]>;
}

/** Where a sealed integration secret belongs: opening it anywhere else fails. */
export const integrationSecretContext = (integration: Pick<Integration, 'orgId' | 'id'>) => ({
  orgId: integration.orgId,
  integrationId: integration.id,
  purpose: 'inbound_auth',
});

/** The integration as the operator (and later the app) sees it: never a secret, a hash or a sealed value. */
export const toIntegrationView = (integration: Integration) => ({
  id: integration.id,
  object: 'integration' as const,
  name: integration.name,
  kind: integration.kind,
  enabled: integration.enabled,
  client_id: integration.clientId,
  recipe: integration.recipe,
  mapping: { ticket_id: integration.mapping.ticketId, status: integration.mapping.status, fields: integration.mapping.fields },
  status_map: integration.statusMap,
  auth: { mode: integration.auth.mode, header_name: integration.auth.headerName, secret_set: integration.auth.secret !== null },
  default_preset: integration.defaultPreset,
  rate_limit_per_minute: integration.rateLimitPerMinute,
  helpdesk: toHelpdeskView(integration.helpdesk),
  created_at: integration.createdAt,
  updated_at: integration.updatedAt,
});

/** What a caller is told of an integration it may not name: the same as of one that does not exist. */
export const UNKNOWN_INTEGRATION = 'No such ticketing integration.';

/**
 * Whether a caller may name this integration of its organisation (null: it has none with that
 * id): a client-scoped key or integration names only its own client's, so another client's, or an
 * organisation-wide one, is as unknown to it as one that does not exist. POST /requests'
 * `ticket_integration_id` and POST /tickets/{ref}/status' `integration_id` both ask this.
 */
export const integrationInScope = (integration: Pick<Integration, 'clientId'> | null, clientScope: string | null) =>
  integration !== null && (clientScope === null || integration.clientId === clientScope);

/** An integration limited to one client, named for a request of another (by a caller who may see both). */
export const INTEGRATION_OF_ANOTHER_CLIENT = "This ticketing integration serves another client: choose the request's client, or an integration of that client or of the whole organisation.";

/** The integration acting (a status it posted, a request its trigger created): a system actor named after it. */
export const integrationActor = (integration: Pick<Integration, 'id' | 'name'>): Actor => ({ type: 'system', label: integration.name, id: integration.id });
