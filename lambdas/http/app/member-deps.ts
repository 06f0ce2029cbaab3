import { DynamoIdentityKeys } from '#store/member-keys.ts';
import { DynamoMemberAccess } from '#store/sessions.ts';
import type { AppDeps } from '../../app-deps.ts';
import { SIGN_IN_EMAIL_FAILED } from '../../failure-logs.ts';

/**
 * What the member endpoints need beyond AppDeps: the session store and the conditional identity
 * key writes, over the same table, document client and audit log. Built once per AppDeps.
 */
const built = new WeakMap<AppDeps, ReturnType<typeof build>>();

const build = (deps: AppDeps) => ({
  ...deps,
  access: new DynamoMemberAccess(deps.db, deps.tableName),
  identityKeys: new DynamoIdentityKeys(deps.tableName, deps.audit),
  recipientHealth: deps,
  onDeliveryFailure: (error: unknown) =>
    deps.logger.error(SIGN_IN_EMAIL_FAILED, { errorName: (error as Error)?.name }),
});

export type MemberAppDeps = ReturnType<typeof build>;

export const memberDeps = (deps: AppDeps): MemberAppDeps => {
  let value = built.get(deps);
  if (!value) built.set(deps, (value = build(deps)));
  return value;
};
