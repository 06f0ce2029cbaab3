import * as z from 'zod/mini';
import { notFound, validationFailed } from '../../errors.ts';
import { TRIGGER_FIELDS } from '../../inbound/mapping.ts';
import { RECIPE_NAMES, RECIPES } from '../../inbound/recipes.ts';
import { parseStatusMap } from '../../inbound/status-words.ts';
import { toIntegrationView, type Integration } from '../../integration.ts';
import { byName, clientChoices, managerActor, requireManager, type MemberCaller } from '../../member-access.ts';
import type { Client, Preset } from '../../model.ts';
import { planIncludes } from '../../plans.ts';
import { parseOrThrow, ulidString } from '../../validation.ts';
import {
  configureIntegration,
  connectIntegration,
  integrationActivity,
  rotateIntegrationSecrets,
  type IntegrationChanges,
  type RotatedIntegration,
  type ConnectedIntegration,
  type IntegrationDeps,
} from './manage-integration.ts';
import { helpdeskChoices } from './member-helpdesk.ts';

/**
 * The member application's Integrations pages (docs/web-api.md, Integrations): owners and admins
 * connect, configure, rotate and read the activity of the organisation's ticketing integrations
 * through the same use cases as the operator CLI (manage-integration.ts), audited with the member
 * as the actor. Anyone else: 403. This module only reads the body's shape; what the values mean
 * is the use cases' to judge.
 */
export interface MemberIntegrationDeps extends IntegrationDeps {
  directory: IntegrationDeps['directory'] & {
    listClients(orgId: string): Promise<Client[]>;
    listPresets(orgId: string): Promise<Preset[]>;
  };
}

const ACTION = 'manage integrations';

/**
 * What a helpdesk writes for the ticket id in a link on its ticket screen. No recipe names its
 * helpdesk's own syntax yet, so every one gets the common `{{ticket.id}}` (Zendesk's and
 * Freshdesk's), which the page tells the admin to replace with their helpdesk's.
 */
export const TICKET_PLACEHOLDER = '{{ticket.id}}';

/**
 * The new-request deep link for a helpdesk's ticket screen (SPEC.md): the placeholder is left
 * unencoded, for the helpdesk to fill in; the preset, when the integration has a default one.
 */
export const deepLinkTemplate = (appUrl: string, presetSlug: string | null) =>
  `${appUrl}/app/requests/new?ticket=${TICKET_PLACEHOLDER}${presetSlug ? `&preset=${encodeURIComponent(presetSlug)}` : ''}`;

/**
 * What the pages' forms offer: the organisation's clients and presets by name (and whether its plan
 * includes presets, so a default preset can be set), the recipes, the trigger fields.
 */
const choicesOf = async (deps: MemberIntegrationDeps, caller: MemberCaller) => {
  const orgId = caller.org.id;
  const [clients, presets] = await Promise.all([deps.directory.listClients(orgId), deps.directory.listPresets(orgId)]);
  return {
    clients: clientChoices(clients),
    recipes: RECIPE_NAMES.map((name) => ({ name, label: RECIPES[name].label, auth: RECIPES[name].auth, setup: RECIPES[name].setup })),
    presets: byName(presets).map((preset) => ({ slug: preset.slug, name: preset.name })),
    preset_access: planIncludes(caller.org.plan, 'presets'),
    trigger_fields: TRIGGER_FIELDS,
    helpdesks: helpdeskChoices(),
  };
};

/** An integration as the pages show it: the operator's view, with its deep link template. */
const memberView = (deps: MemberIntegrationDeps, integration: ReturnType<typeof toIntegrationView>) => ({
  ...integration,
  deep_link_template: deepLinkTemplate(deps.urls.appUrl, integration.default_preset),
});

/** GET /app/api/integrations: the organisation's integrations, oldest first, and what the forms offer. */
export const listMemberIntegrations = async (deps: MemberIntegrationDeps, caller: MemberCaller) => {
  requireManager(caller, ACTION);
  const orgId = caller.org.id;
  const [integrations, choices] = await Promise.all([deps.integrations.list(orgId), choicesOf(deps, caller)]);
  const byAge = (a: Integration, b: Integration) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  return { object: 'list' as const, data: integrations.sort(byAge).map((integration) => memberView(deps, toIntegrationView(integration))), ...choices };
};

const connectBody = z.strictObject({
  name: z.string('Must be a string.').check(z.maxLength(1000, 'Must be 1 to 100 characters.')),
  client_id: z.nullish(ulidString()),
  recipe: z.nullish(z.string('Must be a recipe name.').check(z.maxLength(100, `Must be one of ${RECIPE_NAMES.join(', ')}.`))),
});

/** POST /app/api/integrations: 201 {integration, webhook_url, trigger_url, recommended_auth}; both URLs shown this once. */
const memberConnected = (deps: MemberIntegrationDeps, connected: ConnectedIntegration) => ({ ...connected, integration: memberView(deps, connected.integration) });

/** `prepared` is given the answer just before the integration is stored (its URLs are live from then). */
export const memberConnectIntegration = async (
  deps: MemberIntegrationDeps,
  caller: MemberCaller,
  rawBody: unknown,
  prepared?: (answer: ReturnType<typeof memberConnected>) => void,
) => {
  const actor = managerActor(caller, ACTION);
  const body = parseOrThrow(connectBody, rawBody ?? {});
  const connected = await connectIntegration(
    deps,
    actor,
    {
      orgId: caller.org.id,
      name: body.name,
      clientId: body.client_id ?? null,
      recipe: body.recipe ?? null,
    },
    prepared && ((answer) => prepared(memberConnected(deps, answer))),
  );
  return memberConnected(deps, connected);
};

/** GET /app/api/integrations/{id}: one integration (never a secret), with what its forms offer. */
export const memberIntegration = async (deps: MemberIntegrationDeps, caller: MemberCaller, integrationId: string) => {
  requireManager(caller, ACTION);
  const orgId = caller.org.id;
  const [integration, choices] = await Promise.all([deps.integrations.get(orgId, integrationId), choicesOf(deps, caller)]);
  if (!integration) throw notFound('No such integration.');
  return { integration: memberView(deps, toIntegrationView(integration)), ...choices };
};

const paths = () =>
  z.array(z.string('Must be a dotted path.').check(z.maxLength(1000, 'A path is at most 200 characters.')), 'Must be an array of dotted paths.').check(
    z.maxLength(20, 'At most 20 alternatives.'),
  );

const configureBody = z.strictObject({
  name: z.optional(z.string('Must be a string.').check(z.maxLength(1000, 'Must be 1 to 100 characters.'))),
  enabled: z.optional(z.boolean('Must be true or false.')),
  recipe: z.optional(z.string('Must be a recipe name.').check(z.maxLength(100, `Must be one of ${RECIPE_NAMES.join(', ')}.`))),
  ticket_id_paths: z.optional(paths()),
  status_paths: z.optional(paths()),
  fields: z.optional(z.strictObject(Object.fromEntries(TRIGGER_FIELDS.map((field) => [field, z.optional(paths())])))),
  /** Pairs `word=status`, by commas or one a line, merged into the status map. */
  status_map: z.optional(z.string('Must be text of word=status pairs.').check(z.maxLength(10_000, 'At most 10,000 characters.'))),
  /** Words taken out of the status map; a word can be as long as `status_map` allows. */
  remove_status_words: z.optional(
    z.array(z.string('Must be a status word.').check(z.maxLength(10_000, 'At most 10,000 characters.')), 'Must be an array of status words.').check(
      z.maxLength(100, 'At most 100 words at once.'),
    ),
  ),
  auth: z.optional(
    z.strictObject({
      mode: z.string('Must be a string.').check(z.maxLength(100, 'Must be an auth mode.')),
      header_name: z.nullish(z.string('Must be a string.').check(z.maxLength(1000, 'At most 64 characters.'))),
      secret: z.nullish(z.string('Must be a string.').check(z.maxLength(10_000, 'At most 512 characters.'))),
    }),
  ),
  default_preset: z.nullish(z.string('Must be a preset slug.').check(z.maxLength(200, 'Must be a preset slug.'))),
  rate_limit_per_minute: z.optional(z.number('Must be a whole number.')),
});

const statusMapOf = (text: string | undefined) => {
  if (text === undefined) return undefined;
  try {
    return parseStatusMap(text);
  } catch (error) {
    throw validationFailed({ status_map: [(error as Error).message] });
  }
};

/**
 * POST /app/api/integrations/{id}: the changes the body names; a secret given is sealed and never shown back.
 * `prepared` is given the answer just before a change is stored (a caller's Idempotency-Key keeps it in that transaction).
 */
export const memberConfigureIntegration = async (
  deps: MemberIntegrationDeps,
  caller: MemberCaller,
  integrationId: string,
  rawBody: unknown,
  prepared?: (answer: ReturnType<typeof memberView>) => void,
) => {
  const actor = managerActor(caller, ACTION);
  const body = parseOrThrow(configureBody, rawBody ?? {});
  const changes: IntegrationChanges = {
    name: body.name,
    enabled: body.enabled,
    recipe: body.recipe,
    ticketIdPaths: body.ticket_id_paths,
    statusPaths: body.status_paths,
    fields: body.fields,
    statusMap: statusMapOf(body.status_map),
    removeStatusWords: body.remove_status_words,
    auth: body.auth && { mode: body.auth.mode, headerName: body.auth.header_name ?? null, secret: body.auth.secret ?? null },
    // Absent: unchanged; null or empty: none.
    defaultPreset: body.default_preset === undefined ? undefined : body.default_preset || null,
    rateLimitPerMinute: body.rate_limit_per_minute,
  };
  const answer = (view: Parameters<typeof memberView>[1]) => memberView(deps, view);
  return answer(await configureIntegration(deps, actor, caller.org.id, integrationId, changes, prepared && ((view) => prepared(answer(view)))));
};

const rotationAnswer = (deps: MemberIntegrationDeps, rotated: RotatedIntegration) => ({ ...rotated, integration: memberView(deps, rotated.integration) });

/**
 * POST /app/api/integrations/{id}/rotate: 200 {integration, webhook_url, trigger_url}; the old URLs
 * answer 404 at once. `prepared` is given the answer just before the rotation is stored.
 */
export const memberRotateIntegration = async (
  deps: MemberIntegrationDeps,
  caller: MemberCaller,
  integrationId: string,
  prepared?: (answer: ReturnType<typeof rotationAnswer>) => void,
) => {
  const actor = managerActor(caller, ACTION);
  const rotated = await rotateIntegrationSecrets(deps, actor, caller.org.id, integrationId, (result) => prepared?.(rotationAnswer(deps, result)));
  return rotationAnswer(deps, rotated);
};

/** GET /app/api/integrations/{id}/activity: the recent unusable posts, newest first, with their reasons. */
export const memberIntegrationActivity = async (deps: MemberIntegrationDeps, caller: MemberCaller, integrationId: string) => {
  requireManager(caller, ACTION);
  return { object: 'list' as const, data: await integrationActivity(deps, caller.org.id, integrationId) };
};
