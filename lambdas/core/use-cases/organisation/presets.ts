import * as z from 'zod/mini';
import { notFound, retryOnConflict, validationFailed, type FieldErrors } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { requirePlan } from '../../plans.ts';
import { meetsMinimum } from '../../policy.ts';
import type { Actor, Preset, PresetDefaults, Template } from '../../model.ts';
import { createRequestBody } from '../../schemas.ts';
import { emailAddress } from '../../email-address.ts';
import { parseOrThrow, ulidString } from '../../validation.ts';
import { settingsAudit, type SettingsDeps } from './settings-store.ts';

/**
 * Templates, presets and default presets (SPEC.md: a preset's saved defaults apply first when a
 * request names it; a ticket trigger without one takes the client's default preset, then the
 * organisation's). One rule for every way in: the operator CLI's `create-template`,
 * `save-preset` and `set-default-preset` (through AdminStore) and the member application's
 * presets page. Presets are a Team plan feature (core/plans.ts): a Free organisation saves none
 * and names none as a default (403 `plan_required`); clearing a default is always allowed.
 */

export const PRESET_SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const MAX_SETTING_NAME = 100;

const name = () =>
  z.string('Must be text.').check(
    z.trim(),
    z.minLength(1, `Must be 1 to ${MAX_SETTING_NAME} characters.`),
    z.maxLength(MAX_SETTING_NAME, `Must be 1 to ${MAX_SETTING_NAME} characters.`),
  );
/** A saved justification passes as a request's own would: it becomes one. */
const requestFields = createRequestBody.shape;

const templateBody = z.strictObject({
  name: name(),
  justification: z.nullish(requestFields.justification),
});

/** A preset's defaults are request fields, each judged as a request's body judges it. */
const presetDefaults = z.strictObject({
  justification: requestFields.justification,
  ttl_minutes: requestFields.ttl_minutes,
  verification_mode: requestFields.verification_mode,
  template_id: requestFields.template_id,
  recipients: requestFields.recipients,
  delivery: requestFields.delivery,
  allow_attachments: requestFields.allow_attachments,
});

const presetBody = z.strictObject({
  slug: z.string('Must be text.').check(z.regex(PRESET_SLUG, 'Must be 1 to 40 lower-case letters, digits and dashes, starting with a letter or digit.')),
  name: name(),
  defaults: z.optional(presetDefaults),
  requester_from_ticket: z.optional(z.boolean('Must be true or false.')),
  fallback_requester: z.nullish(emailAddress()),
});

const defaultPresetBody = z.strictObject({
  client_id: z.nullish(ulidString()),
  /** Null clears the default. */
  preset: z.nullable(z.string('Must be a preset slug, or null.').check(z.minLength(1, 'Must be a preset slug, or null.'), z.maxLength(40, 'Must be at most 40 characters.'))),
});

const refuseIfAny = (errors: FieldErrors) => {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
};

const requireOrganisation = async (deps: Pick<SettingsDeps, 'directory'>, orgId: string) => {
  const org = await deps.directory.getOrganisation(orgId);
  if (!org) throw notFound('No such organisation.');
  return org;
};

export const templateView = (template: Template) => ({ id: template.id, name: template.name, justification: template.justification, created_at: template.createdAt });

export const presetView = (preset: Preset) => ({
  slug: preset.slug,
  name: preset.name,
  defaults: preset.defaults,
  requester_from_ticket: preset.requesterFromTicket ?? false,
  fallback_requester: preset.fallbackRequester ?? null,
  created_at: preset.createdAt,
});

/**
 * Creates a template; 422 by field for a refused name or justification.
 * `prepared` is given the template just before it is stored (a caller's Idempotency-Key keeps its answer in that transaction).
 */
export const createTemplate = async (deps: SettingsDeps, actor: Actor, orgId: string, rawBody: unknown, prepared?: (template: Template) => void) => {
  const body = parseOrThrow(templateBody, rawBody ?? {});
  await requireOrganisation(deps, orgId);
  const template: Template = { id: newId(), orgId, name: body.name, justification: body.justification ?? null, createdAt: deps.clock.now().toISOString() };
  prepared?.(template);
  await deps.settings.putTemplate(template, settingsAudit(orgId, actor, 'template.created', { template_id: template.id, name: template.name }));
  return template;
};

/** Drops the defaults a body left out or set to null: a preset keeps only what it sets. */
const keptDefaults = (defaults: z.infer<typeof presetDefaults> | undefined): PresetDefaults => {
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(defaults ?? {})) if (value !== undefined && value !== null) kept[field] = value;
  return kept as PresetDefaults;
};

/**
 * Creates the preset, or replaces the one with this slug. Besides each field's own rule, its TTL
 * must be one of the policy's options, its verification at least the policy's minimum, its
 * template one of the organisation's, and its recipients and fallback requester members: a
 * preset that no request could use is refused when it is saved, not when a ticket needs it.
 * (A recipient without a key yet is allowed: they may set one up before the preset is used.)
 * `prepared` is given what was saved just before it is stored (a caller's Idempotency-Key keeps its
 * answer in that transaction, so a retry after a lost answer does not find its own preset to replace).
 */
export const savePreset = (deps: SettingsDeps, actor: Actor, orgId: string, rawBody: unknown, prepared?: (saved: SavedPreset) => void) => {
  const body = parseOrThrow(presetBody, rawBody ?? {});
  return retryOnConflict(() => saveOnce(deps, actor, orgId, body, prepared));
};

export type SavedPreset = { preset: Preset; replaced: boolean };

const saveOnce = async (deps: SettingsDeps, actor: Actor, orgId: string, body: z.infer<typeof presetBody>, prepared?: (saved: SavedPreset) => void): Promise<SavedPreset> => {
  const defaults = keptDefaults(body.defaults);
  const fallbackRequester = body.fallback_requester?.trim().toLowerCase() || null;
  const [org, existing, template, members] = await Promise.all([
    requireOrganisation(deps, orgId),
    deps.directory.getPreset(orgId, body.slug),
    defaults.template_id ? deps.directory.getTemplate(orgId, defaults.template_id) : null,
    fallbackRequester || defaults.recipients?.length ? deps.directory.listMembers(orgId) : [],
  ]);
  requirePlan(org, 'presets');
  const { policy } = org;
  const errors: FieldErrors = {};
  if (defaults.ttl_minutes !== undefined && !policy.ttlOptionsMinutes.includes(defaults.ttl_minutes)) {
    errors['defaults.ttl_minutes'] = [`Must be one of the policy's TTL options: ${policy.ttlOptionsMinutes.join(', ')}.`];
  }
  if (defaults.verification_mode && !meetsMinimum(defaults.verification_mode, policy.minimumVerification)) {
    errors['defaults.verification_mode'] = [`Must meet the policy's minimum verification, ${policy.minimumVerification}.`];
  }
  if (defaults.template_id && !template) errors['defaults.template_id'] = ['No such template in this organisation.'];
  if (fallbackRequester && !members.some((member) => member.email === fallbackRequester)) {
    errors.fallback_requester = [`No member has the email ${fallbackRequester}.`];
  }
  // A recipient who is no member could never receive: every request using the preset would be refused.
  (defaults.recipients ?? []).forEach((email, index) => {
    if (!members.some((member) => member.email === email.trim().toLowerCase())) errors[`defaults.recipients.${index}`] = [`No member has the email ${email}.`];
  });
  refuseIfAny(errors);

  const preset: Preset = {
    orgId,
    slug: body.slug,
    name: body.name,
    defaults,
    requesterFromTicket: body.requester_from_ticket ?? false,
    fallbackRequester,
    createdAt: existing?.createdAt ?? deps.clock.now().toISOString(),
  };
  prepared?.({ preset, replaced: Boolean(existing) });
  await deps.settings.putPreset(preset, Boolean(existing), org.policyVersion ?? 0, settingsAudit(orgId, actor, 'preset.saved', { slug: preset.slug, name: preset.name, replaced: Boolean(existing) }));
  return { preset, replaced: Boolean(existing) };
};

/**
 * The preset a ticket trigger uses when its post names none: the client's (with `client_id`),
 * else the organisation's; `preset` null clears it.
 */
export const setDefaultPreset = (deps: SettingsDeps, actor: Actor, orgId: string, rawBody: unknown) => {
  const body = parseOrThrow(defaultPresetBody, rawBody ?? {});
  // A plan change or preset save that commits meanwhile: judged again under what now stands.
  return retryOnConflict(() => setDefaultOnce(deps, actor, orgId, body));
};

const setDefaultOnce = async (deps: SettingsDeps, actor: Actor, orgId: string, body: z.infer<typeof defaultPresetBody>) => {
  const clientId = body.client_id ?? null;
  const slug = body.preset;
  const [org, preset, client] = await Promise.all([
    requireOrganisation(deps, orgId),
    slug && PRESET_SLUG.test(slug) ? deps.directory.getPreset(orgId, slug) : null,
    clientId ? deps.directory.getClient(orgId, clientId) : null,
  ]);
  if (slug) requirePlan(org, 'presets');
  const errors: FieldErrors = {};
  if (slug && !preset) errors.preset = [`No preset has the slug ${slug}.`];
  if (clientId && !client) errors.client_id = ['No such client in this organisation.'];
  refuseIfAny(errors);
  // The default it already has writes nothing (no second audit entry for the same choice).
  if (((clientId ? client?.defaultPreset : org.defaultPreset) ?? null) === slug) return { client_id: clientId, default_preset: slug };
  await deps.settings.setDefaultPreset(orgId, clientId, slug, org.policyVersion ?? 0, settingsAudit(orgId, actor, 'preset.default_set', { client_id: clientId, preset: slug }));
  return { client_id: clientId, default_preset: slug };
};
