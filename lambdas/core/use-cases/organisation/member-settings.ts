import { byName, managerActor, requireManager, type MemberCaller } from '../../member-access.ts';
import { DELIVERY_METHODS, VERIFICATION_MODES } from '../../model.ts';
import { planIncludes } from '../../plans.ts';
import { meetsMinimum } from '../../policy.ts';
import { changePolicy, CLOSE_STATUSES, GRACE_BOUNDS, LINK_LIFETIME_BOUNDS, MAX_TTL_OPTIONS, policyView, TTL_BOUNDS, type ChangedPolicy } from './policy.ts';
import { createTemplate, presetView, savePreset, setDefaultPreset, templateView, type SavedPreset } from './presets.ts';
import type { SettingsDeps } from './settings-store.ts';

/**
 * The member application's Organisation pages for the policy, templates and presets
 * (docs/web-api.md, Organisation settings): owners and admins (403 for anyone else) read and change
 * them through the same use cases as the operator CLI, audited with the member as the actor.
 */
const MANAGE = 'change the organisation’s settings';

const manager = (caller: MemberCaller) => managerActor(caller, MANAGE);

/** GET /app/api/organisation/policy: the policy and what its fields may be. */
export const memberPolicy = (caller: MemberCaller) => {
  requireManager(caller, MANAGE);
  return {
    policy: policyView(caller.org.policy),
    choices: {
      verification_modes: VERIFICATION_MODES,
      close_statuses: CLOSE_STATUSES,
      ttl_minutes: TTL_BOUNDS,
      max_ttl_options: MAX_TTL_OPTIONS,
      link_lifetime_minutes: LINK_LIFETIME_BOUNDS,
      grace_period_minutes: GRACE_BOUNDS,
    },
  };
};

/**
 * POST /app/api/organisation/policy: 200 {policy, changed: [{field, from, to}]}. `prepared` is given
 * the answer just before a change is stored (a caller's Idempotency-Key keeps it in that transaction).
 */
export const memberChangePolicy = async (deps: SettingsDeps, caller: MemberCaller, body: unknown, prepared?: (answer: ChangedPolicyView) => void) =>
  changedPolicyView(await changePolicy(deps, manager(caller), caller.org.id, body, prepared && ((result) => prepared(changedPolicyView(result)))));

const changedPolicyView = ({ policy, changed }: ChangedPolicy) => ({ policy: policyView(policy), changed });
type ChangedPolicyView = ReturnType<typeof changedPolicyView>;

/** GET /app/api/templates: by name. */
export const memberTemplates = async (deps: Pick<SettingsDeps, 'directory'>, caller: MemberCaller) => {
  requireManager(caller, MANAGE);
  return { data: byName(await deps.directory.listTemplates(caller.org.id)).map(templateView) };
};

/** POST /app/api/templates: 201 the template. */
export const memberCreateTemplate = async (deps: SettingsDeps, caller: MemberCaller, body: unknown, prepared?: (answer: ReturnType<typeof templateView>) => void) =>
  templateView(await createTemplate(deps, manager(caller), caller.org.id, body, prepared && ((template) => prepared(templateView(template)))));

/**
 * GET /app/api/presets: the presets by name, with what their form offers (the policy's TTL
 * options and the modes meeting its minimum, templates, delivery methods, members for the fallback
 * requester), the default presets (the organisation's and each client's), and whether the plan
 * includes presets at all (`preset_access`; the page explains instead of offering the forms).
 */
export const memberPresets = async (deps: Pick<SettingsDeps, 'directory'>, caller: MemberCaller) => {
  requireManager(caller, MANAGE);
  const orgId = caller.org.id;
  const [presets, templates, clients, members] = await Promise.all([
    deps.directory.listPresets(orgId),
    deps.directory.listTemplates(orgId),
    deps.directory.listClients(orgId),
    deps.directory.listMembers(orgId),
  ]);
  const { policy } = caller.org;
  return {
    data: byName(presets).map(presetView),
    preset_access: planIncludes(caller.org.plan, 'presets'),
    default_preset: caller.org.defaultPreset ?? null,
    clients: byName(clients).map((client) => ({ id: client.id, name: client.name, default_preset: client.defaultPreset ?? null })),
    templates: byName(templates).map(templateView),
    members: byName(members.filter((member) => member.active)).map((member) => ({ name: member.name, email: member.email })),
    choices: {
      ttl_options_minutes: policy.ttlOptionsMinutes,
      verification_modes: VERIFICATION_MODES.filter((mode) => meetsMinimum(mode, policy.minimumVerification)),
      delivery_methods: DELIVERY_METHODS,
    },
  };
};

/**
 * POST /app/api/presets: 201 a new preset, 200 one replaced under the same slug. `prepared` is given
 * the answer just before the preset is stored (a caller's Idempotency-Key keeps it in that transaction).
 */
export const memberSavePreset = async (deps: SettingsDeps, caller: MemberCaller, body: unknown, prepared?: (answer: SavedPresetView) => void) =>
  savedPresetView(await savePreset(deps, manager(caller), caller.org.id, body, prepared && ((saved) => prepared(savedPresetView(saved)))));

const savedPresetView = ({ preset, replaced }: SavedPreset) => ({ preset: presetView(preset), replaced });
type SavedPresetView = ReturnType<typeof savedPresetView>;

/** POST /app/api/default-preset: 200 {client_id, default_preset}. */
export const memberSetDefaultPreset = (deps: SettingsDeps, caller: MemberCaller, body: unknown) =>
  setDefaultPreset(deps, manager(caller), caller.org.id, body);
