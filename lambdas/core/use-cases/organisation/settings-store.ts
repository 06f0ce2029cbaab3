import type { AuditType } from '../../audit-types.ts';
import { organisationAudit } from '../../organisation-audit.ts';
import type { Clock } from '../../clock.ts';
import type { Actor, Client, Policy, Preset, Template } from '../../model.ts';
import type { AuditEntryInput, Directory } from '../../ports.ts';

/**
 * The organisation's settings (SPEC.md: policy, templates, presets, default presets), as the
 * operator CLI (bin/admin, through AdminStore) and the member application's Organisation pages
 * change them: one rule each (policy.ts, presets.ts), the actor given by the caller.
 */

/** Each write goes with its audit entry, in one transaction (store/organisation-settings.ts). */
export interface OrganisationSettingsStore {
  /** WriteConflict when the policy changed since `readVersion` (Organisation.policyVersion). */
  savePolicy(orgId: string, policy: Policy, readVersion: number, audit: AuditEntryInput): Promise<void>;
  putTemplate(template: Template, audit: AuditEntryInput): Promise<void>;
  /**
   * Creates or replaces the preset with this slug. `replaces`: a preset of this slug was read; when
   * false, WriteConflict if one was made meanwhile. `policyVersion`: the version of the policy it
   * was judged against; WriteConflict if the policy changed since. The save moves the version on
   * too, so a policy change judged against the presets before it is refused (WriteConflict) and
   * judged again: a preset and a policy saved at once never both pass on what the other replaced.
   */
  putPreset(preset: Preset, replaces: boolean, policyVersion: number, audit: AuditEntryInput): Promise<void>;
  /**
   * The client's default preset (with a client), else the organisation's; null clears it.
   * WriteConflict when the policy version moved on since `policyVersion` (a plan change among them).
   */
  setDefaultPreset(orgId: string, clientId: string | null, slug: string | null, policyVersion: number, audit: AuditEntryInput): Promise<void>;
}

export interface SettingsDirectory extends Pick<Directory, 'getOrganisation' | 'getClient' | 'getPreset' | 'getTemplate' | 'listMembers'> {
  listClients(orgId: string): Promise<Client[]>;
  listTemplates(orgId: string): Promise<Template[]>;
  listPresets(orgId: string): Promise<Preset[]>;
}

export interface SettingsDeps {
  settings: OrganisationSettingsStore;
  directory: SettingsDirectory;
  clock: Clock;
}

/** An audit entry of a settings change, naming its actor as every entry does. */
export const settingsAudit = (orgId: string, actor: Actor, type: AuditType, details: Record<string, unknown>): AuditEntryInput =>
  organisationAudit(orgId, actor, type, { details });
