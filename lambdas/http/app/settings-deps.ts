import type { SettingsDeps } from '#core/use-cases/organisation/settings-store.ts';
import { DynamoOrganisationSettings } from '#store/organisation-settings.ts';
import type { AppDeps } from '../../app-deps.ts';

/** What the organisation settings endpoints (policy, templates, presets) need: the settings' writes over the same table and audit log. */
export const settingsDeps = (deps: AppDeps): SettingsDeps => ({
  settings: new DynamoOrganisationSettings(deps.tableName, deps.audit),
  directory: deps.directory,
  clock: deps.clock,
});
