import { DynamoOrganisationChanges } from '#store/organisation-changes.ts';
import type { AppDeps } from '../../app-deps.ts';
import { memberDeps } from './member-deps.ts';

/**
 * What the Organisation settings endpoints (clients, teams, members) need: the member endpoints'
 * deps and the organisation changes' store over the same table and audit log. Built once per AppDeps.
 */
const built = new WeakMap<AppDeps, ReturnType<typeof build>>();

const build = (deps: AppDeps) => ({ ...memberDeps(deps), changes: new DynamoOrganisationChanges(deps.db, deps.tableName, deps.audit) });

export const organisationDeps = (deps: AppDeps) => {
  let value = built.get(deps);
  if (!value) built.set(deps, (value = build(deps)));
  return value;
};
