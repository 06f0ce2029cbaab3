import type { AuditType } from '../../audit-types.ts';
import { canonicalJson } from '../../custody/canonical.ts';
import { organisationAudit } from '../../organisation-audit.ts';
import type { Clock } from '../../clock.ts';
import { notFound, retryOnConflict, validationFailed, type FieldErrors } from '../../errors.ts';
import { randomToken, sha256Hex } from '../../hashing.ts';
import { newId } from '../../ids.ts';
import { DEFAULT_MAPPING, TRIGGER_FIELDS, type FieldMapping, type TriggerField } from '../../inbound/mapping.ts';
import { isRecipeName, RECIPES, type InboundAuthMode, type RecipeName } from '../../inbound/recipes.ts';
import { mergeStatusMaps, type StatusMap } from '../../inbound/status-words.ts';
import {
  DEFAULT_INBOUND_RATE_LIMIT,
  integrationSecretContext,
  MAX_INBOUND_RATE_LIMIT,
  toIntegrationView,
  type InboundPurpose,
  type Integration,
  type IntegrationRepository,
} from '../../integration.ts';
import type { Actor } from '../../model.ts';
import { requirePlan } from '../../plans.ts';
import type { Directory } from '../../ports.ts';
import type { PublicUrls } from '../../request-view.ts';
import type { SecretSealer } from '../../sealing.ts';
import { changedStatusMap } from './status-map-change.ts';

export interface IntegrationDeps {
  integrations: IntegrationRepository;
  directory: Pick<Directory, 'getOrganisation' | 'getClient' | 'getPreset'>;
  sealer: SecretSealer;
  clock: Clock;
  urls: Pick<PublicUrls, 'appUrl'>;
}

/** URL secrets: 32 random bytes (256 bits) each, base64url, shown once; only their SHA-256 is kept. */
const URL_SECRET_BYTES = 32;
export const INBOUND_PATHS: Record<InboundPurpose, string> = { status: '/inbound/ticket-status/', trigger: '/inbound/ticket-trigger/' };
/** A shared header value or signing secret shorter than this is too easy to guess. */
export const MIN_AUTH_SECRET_LENGTH = 16;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const AUTH_MODES: readonly InboundAuthMode[] = ['none', 'header', 'hmac', 'zendesk', 'hub-sha256', 'hub-sha1'];

const newUrlSecrets = () => ({ status: randomToken(URL_SECRET_BYTES), trigger: randomToken(URL_SECRET_BYTES) });
const hashesOf = (secrets: Record<InboundPurpose, string>) => ({ status: sha256Hex(secrets.status), trigger: sha256Hex(secrets.trigger) });

/** Both URLs with their secrets: shown once, at connect and at rotation. */
export const inboundUrls = (urls: Pick<PublicUrls, 'appUrl'>, secrets: Record<InboundPurpose, string>) => ({
  webhook_url: `${urls.appUrl}${INBOUND_PATHS.status}${secrets.status}`,
  trigger_url: `${urls.appUrl}${INBOUND_PATHS.trigger}${secrets.trigger}`,
});

const audit = (integration: Integration, actor: Actor, type: AuditType, details: Record<string, unknown>) =>
  organisationAudit(integration.orgId, actor, type, { details: { integration_id: integration.id, name: integration.name, ...details } }, integration.clientId);

const fail = (errors: FieldErrors) => {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
};

const checkName = (name: string, errors: FieldErrors) => {
  if (name.trim().length < 1 || name.length > 100) errors.name = ['Must be 1 to 100 characters.'];
};

/** What connecting answers: the integration and both URLs, shown once. */
const connectedAnswer = (urls: Pick<PublicUrls, 'appUrl'>, integration: Integration, secrets: Record<InboundPurpose, string>, recipe: (typeof RECIPES)[RecipeName] | null) => ({
  integration: toIntegrationView(integration),
  ...inboundUrls(urls, secrets),
  recommended_auth: recipe?.auth ?? null,
});
export type ConnectedIntegration = ReturnType<typeof connectedAnswer>;

/**
 * Connects a generic ticketing integration: both URLs (each with its own secret) are shown once.
 * A recipe fills in the helpdesk's mapping and status words; its native signature is switched on
 * by `configureIntegration` once the helpdesk's secret is known.
 */
export const connectIntegration = async (
  deps: IntegrationDeps,
  actor: Actor,
  input: { orgId: string; name: string; clientId?: string | null; recipe?: string | null },
  prepared?: (answer: ConnectedIntegration) => void,
) => {
  const errors: FieldErrors = {};
  checkName(input.name, errors);
  const [org, client] = await Promise.all([
    deps.directory.getOrganisation(input.orgId),
    input.clientId ? deps.directory.getClient(input.orgId, input.clientId) : null,
  ]);
  if (!org) throw notFound('No such organisation.');
  if (input.clientId && !client) errors.client_id = ['No such client.'];
  // Blank is no recipe name: null (or nothing) connects the generic mapping.
  if (input.recipe !== null && input.recipe !== undefined && !isRecipeName(input.recipe)) errors.recipe = [`Must be one of ${Object.keys(RECIPES).join(', ')}.`];
  fail(errors);
  const recipe = input.recipe ? RECIPES[input.recipe as RecipeName] : null;
  const at = deps.clock.now().toISOString();
  const secrets = newUrlSecrets();
  const integration: Integration = {
    id: newId(),
    orgId: input.orgId,
    name: input.name.trim(),
    kind: 'generic',
    enabled: true,
    clientId: input.clientId ?? null,
    recipe: recipe?.name ?? null,
    mapping: recipe?.mapping ?? DEFAULT_MAPPING,
    statusMap: mergeStatusMaps(recipe?.statusMap ?? {}),
    auth: { mode: 'none', headerName: null, secret: null },
    defaultPreset: null,
    rateLimitPerMinute: DEFAULT_INBOUND_RATE_LIMIT,
    secretHashes: hashesOf(secrets),
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  const answer = connectedAnswer(deps.urls, integration, secrets, recipe);
  // Before the change is stored: a caller with an Idempotency-Key keeps the answer in its transaction.
  prepared?.(answer);
  await deps.integrations.create(integration, audit(integration, actor, 'integration.connected', { recipe: integration.recipe, client_id: integration.clientId }));
  return answer;
};

export interface IntegrationChanges {
  name?: string;
  enabled?: boolean;
  /** Applies the recipe's mapping and status words (other changes given with it apply on top). */
  recipe?: string;
  ticketIdPaths?: string[];
  statusPaths?: string[];
  /** Merged into the status map. */
  statusMap?: StatusMap;
  /** Taken out of the status map (before `statusMap` is merged in); each must be one of its words. */
  removeStatusWords?: string[];
  /** Where trigger fields sit; an empty list puts a field back at its own name. */
  fields?: Partial<Record<string, string[]>>;
  auth?: { mode: string; headerName?: string | null; secret?: string | null };
  defaultPreset?: string | null;
  rateLimitPerMinute?: number;
}

const requireIntegration = async (deps: IntegrationDeps, orgId: string, integrationId: string) => {
  const integration = await deps.integrations.get(orgId, integrationId);
  if (!integration) throw notFound('No such integration.');
  return integration;
};

const checkPaths = (paths: string[] | undefined, field: string, errors: FieldErrors) => {
  if (paths && (paths.length === 0 || paths.some((path) => path.length < 1 || path.length > 200))) {
    errors[field] = ['Give 1 or more dotted paths of 1 to 200 characters.'];
  }
};

/**
 * Changes an integration's settings; a shared header value or signing secret is sealed before it
 * is stored. The write is conditioned on the version read, so of two changes at once the later is
 * made again on what the earlier left. `prepared` is given the integration just before a change is
 * stored (a caller's Idempotency-Key keeps its answer in that transaction, so a retry after a lost
 * answer neither seals and audits a secret again nor is refused a status word it already removed).
 */
export const configureIntegration = (...args: Parameters<typeof configureOnce>) => retryOnConflict(() => configureOnce(...args));

/**
 * A default preset is a preset setting: the organisation's plan must include presets (core/plans.ts).
 * Answers the policy version the plan was read at: the write holds only while it stands.
 */
const requirePresetPlan = async (deps: IntegrationDeps, orgId: string) => {
  const org = await deps.directory.getOrganisation(orgId);
  if (!org) throw notFound('No such organisation.');
  requirePlan(org, 'presets');
  return org.policyVersion ?? 0;
};

const configureOnce = async (
  deps: IntegrationDeps,
  actor: Actor,
  orgId: string,
  integrationId: string,
  changes: IntegrationChanges,
  prepared?: (view: ReturnType<typeof toIntegrationView>) => void,
) => {
  const before = await requireIntegration(deps, orgId, integrationId);
  const policyVersion = changes.defaultPreset ? await requirePresetPlan(deps, orgId) : undefined;
  const errors: FieldErrors = {};
  if (changes.name !== undefined) checkName(changes.name, errors);
  if (changes.recipe !== undefined && !isRecipeName(changes.recipe)) errors.recipe = [`Must be one of ${Object.keys(RECIPES).join(', ')}.`];
  checkPaths(changes.ticketIdPaths, 'ticket_id_paths', errors);
  checkPaths(changes.statusPaths, 'status_paths', errors);
  for (const [field, paths] of Object.entries(changes.fields ?? {})) {
    if (!(TRIGGER_FIELDS as readonly string[]).includes(field)) errors[`fields.${field}`] = [`Must be one of ${TRIGGER_FIELDS.join(', ')}.`];
    // An empty list puts the field back at its own name (below), so only a given path is checked.
    else if (paths && paths.length > 0) checkPaths(paths, `fields.${field}`, errors);
  }
  // A recipe applied with the change replaces the words, so removals are of the recipe's words.
  const recipe = changes.recipe !== undefined && isRecipeName(changes.recipe) ? RECIPES[changes.recipe] : null;
  const statusWords = changedStatusMap(recipe?.statusMap ?? before.statusMap, changes.statusMap, changes.removeStatusWords, errors);
  if (changes.rateLimitPerMinute !== undefined && !(Number.isInteger(changes.rateLimitPerMinute) && changes.rateLimitPerMinute >= 1 && changes.rateLimitPerMinute <= MAX_INBOUND_RATE_LIMIT)) {
    errors.rate_limit_per_minute = [`Must be a whole number from 1 to ${MAX_INBOUND_RATE_LIMIT}.`];
  }
  if (changes.defaultPreset && !(await deps.directory.getPreset(orgId, changes.defaultPreset))) errors.default_preset = [`No preset has the slug ${changes.defaultPreset}.`];
  const auth = changes.auth ? await authOf(deps, before, changes.auth, errors) : before.auth;
  fail(errors);

  const base: FieldMapping = recipe?.mapping ?? before.mapping;
  const merged = { ...base.fields, ...(changes.fields as Partial<Record<TriggerField, string[]>> | undefined) };
  const fields = Object.fromEntries(Object.entries(merged).filter(([, paths]) => paths && paths.length > 0)) as FieldMapping['fields'];
  const after: Integration = {
    ...before,
    name: changes.name?.trim() ?? before.name,
    enabled: changes.enabled ?? before.enabled,
    recipe: recipe?.name ?? before.recipe,
    mapping: { ticketId: changes.ticketIdPaths ?? base.ticketId, status: changes.statusPaths ?? base.status, fields },
    statusMap: statusWords.statusMap,
    auth,
    defaultPreset: changes.defaultPreset === undefined ? before.defaultPreset : changes.defaultPreset,
    rateLimitPerMinute: changes.rateLimitPerMinute ?? before.rateLimitPerMinute,
    updatedAt: deps.clock.now().toISOString(),
  };
  // A change that changes nothing (no flag, or every value as it was) writes nothing, and no audit entry.
  if (sameIntegration(before, after)) return toIntegrationView(before);
  const changed = changedSettings(changes, before, after);
  // The words removed are named: a removed word changes what a helpdesk's posts mean, and nothing else records which it was.
  const removed = changes.removeStatusWords === undefined ? {} : { status_words_removed: statusWords.removedWords };
  const type = after.enabled === before.enabled ? 'integration.updated' : after.enabled ? 'integration.enabled' : 'integration.disabled';
  prepared?.(toIntegrationView(after));
  await deps.integrations.replace(before, after, audit(after, actor, type, { changed, auth_mode: after.auth.mode, ...removed }), policyVersion);
  return toIntegrationView(after);
};

/** The part of an integration each kind of change sets, to name in the audit entry only what a change did change. */
const SETTING_OF_CHANGE: Record<keyof IntegrationChanges, (integration: Integration) => unknown> = {
  name: (integration) => integration.name,
  enabled: (integration) => integration.enabled,
  recipe: (integration) => [integration.recipe, integration.mapping, integration.statusMap],
  ticketIdPaths: (integration) => integration.mapping.ticketId,
  statusPaths: (integration) => integration.mapping.status,
  statusMap: (integration) => integration.statusMap,
  removeStatusWords: (integration) => integration.statusMap,
  fields: (integration) => integration.mapping.fields,
  auth: (integration) => integration.auth,
  defaultPreset: (integration) => integration.defaultPreset,
  rateLimitPerMinute: (integration) => integration.rateLimitPerMinute,
};

/** The changes given whose setting is not what it was (a flag repeating the stored value is left out). */
const changedSettings = (changes: IntegrationChanges, before: Integration, after: Integration) =>
  (Object.keys(changes) as (keyof IntegrationChanges)[]).filter((key) => {
    const setting = SETTING_OF_CHANGE[key];
    return changes[key] !== undefined && (!setting || canonicalJson(setting(before) ?? null) !== canonicalJson(setting(after) ?? null));
  });

/** Whether two versions of an integration hold the same settings (when each was last changed aside). */
const sameIntegration = (before: Integration, after: Integration) => {
  try {
    return canonicalJson({ ...before, updatedAt: null }) === canonicalJson({ ...after, updatedAt: null });
  } catch {
    return false;
  }
};

/** The hardening to store: a new secret is sealed; the mode alone keeps the secret it had (when it needs one). */
const authOf = async (deps: IntegrationDeps, before: Integration, change: NonNullable<IntegrationChanges['auth']>, errors: FieldErrors): Promise<Integration['auth']> => {
  const mode = change.mode as InboundAuthMode;
  if (!AUTH_MODES.includes(mode)) {
    errors.auth = [`Must be one of ${AUTH_MODES.join(', ')}.`];
    return before.auth;
  }
  if (mode === 'none') return { mode, headerName: null, secret: null };
  const headerName = mode === 'header' ? (change.headerName ?? before.auth.headerName) : null;
  if (mode === 'header' && (!headerName || !HEADER_NAME.test(headerName))) errors.header_name = ['A header name is needed: letters, digits and - (at most 64).'];
  const secretField = mode === 'header' ? 'header_value' : 'signing_secret';
  if (change.secret !== undefined && change.secret !== null) {
    if (change.secret.length < MIN_AUTH_SECRET_LENGTH || change.secret.length > 512) {
      errors[secretField] = [`Must be ${MIN_AUTH_SECRET_LENGTH} to 512 characters.`];
      return before.auth;
    }
    return { mode, headerName, secret: await deps.sealer.seal(change.secret, integrationSecretContext(before)) };
  }
  // Keeping the old secret is only right while it means the same thing (a header value is no signing secret).
  const sameKind = (before.auth.mode === 'header') === (mode === 'header') && before.auth.mode !== 'none';
  if (!sameKind || !before.auth.secret) errors[secretField] = [`Required for the ${mode} check.`];
  return { mode, headerName, secret: before.auth.secret };
};

export type RotatedIntegration = { integration: ReturnType<typeof toIntegrationView> } & ReturnType<typeof inboundUrls>;

/**
 * New secrets for both URLs; the old URLs answer 404 from the same commit on. `prepared` is given
 * the result just before it is stored, so the caller's answer can go in the same transaction.
 */
export const rotateIntegrationSecrets = (deps: IntegrationDeps, actor: Actor, orgId: string, integrationId: string, prepared?: (result: RotatedIntegration) => void) =>
  retryOnConflict(async () => {
    const before = await requireIntegration(deps, orgId, integrationId);
    const secrets = newUrlSecrets();
    const after: Integration = { ...before, secretHashes: hashesOf(secrets), updatedAt: deps.clock.now().toISOString() };
    const result: RotatedIntegration = { integration: toIntegrationView(after), ...inboundUrls(deps.urls, secrets) };
    prepared?.(result);
    await deps.integrations.replace(before, after, audit(after, actor, 'integration.secret_rotated', {}));
    return result;
  });

/** Where an activity entry came from: one of the two URLs, or a call the service made to the helpdesk. */
const ACTIVITY_SOURCES = { status: 'webhook', trigger: 'trigger', helpdesk: 'helpdesk' } as const;

/** The recent posts that could not be used, newest first, with their reasons. */
export const integrationActivity = async (deps: IntegrationDeps, orgId: string, integrationId: string) => {
  const integration = await requireIntegration(deps, orgId, integrationId);
  const entries = await deps.integrations.activity(integration.id, deps.clock.now());
  return entries.map((entry) => ({ at: entry.at, url: ACTIVITY_SOURCES[entry.purpose], reason: entry.reason, ticket_id: entry.ticketId, status: entry.statusWord }));
};
