import * as z from 'zod/mini';
import { notFound, retryOnConflict, validationFailed, type FieldErrors } from '../../errors.ts';
import { VERIFICATION_MODES, type Actor, type Policy, type Preset } from '../../model.ts';
import { meetsMinimum } from '../../policy.ts';
import { parseOrThrow } from '../../validation.ts';
import { settingsAudit, type SettingsDeps } from './settings-store.ts';

/**
 * The organisation's policy (SPEC.md: TTL options and default, minimum and default verification,
 * link lifetime, ticket options, rotation signal). One rule for every way in: the operator CLI's
 * `set-policy` (through AdminStore) and the member application's policy page send the changes in
 * the shape `policyView` shows, and only the fields they name change.
 */

/** SPEC.md's bounds of a request's TTL, which the options and the default must keep. */
export const TTL_BOUNDS = { min: 5, max: 43200 } as const;
/** A subject's link may live as long as the longest TTL. */
export const LINK_LIFETIME_BOUNDS = TTL_BOUNDS;
/** A ticket-close grace period of at most a week: longer, and close-to-purge means little. */
export const GRACE_BOUNDS = { min: 0, max: 10080 } as const;
export const MAX_TTL_OPTIONS = 10;
export const CLOSE_STATUSES = ['resolved', 'closed'] as const;

const minutes = (bounds: { min: number; max: number }) => {
  const range = `Must be a whole number of minutes from ${bounds.min} to ${bounds.max}.`;
  return z.number(range).check(z.int(range), z.gte(bounds.min, range), z.lte(bounds.max, range));
};
const mode = () => z.enum(VERIFICATION_MODES, `Must be one of ${VERIFICATION_MODES.join(', ')}.`);
const yesNo = () => z.boolean('Must be true or false.');

/** The changes' shape: every field optional; what the values mean together is judged after. */
const policyChanges = z.strictObject({
  ttl_options_minutes: z.optional(
    z.array(minutes(TTL_BOUNDS), 'Must be a list of minutes.').check(
      z.minLength(1, `List 1 to ${MAX_TTL_OPTIONS} options.`),
      z.maxLength(MAX_TTL_OPTIONS, `List 1 to ${MAX_TTL_OPTIONS} options.`),
    ),
  ),
  default_ttl_minutes: z.optional(minutes(TTL_BOUNDS)),
  minimum_verification: z.optional(mode()),
  default_verification: z.optional(mode()),
  link_lifetime_minutes: z.optional(minutes(LINK_LIFETIME_BOUNDS)),
  ticket: z.optional(
    z.strictObject({
      close_statuses: z.optional(
        z.array(z.enum(CLOSE_STATUSES, 'Must be resolved or closed.'), 'Must be a list of statuses.').check(
          z.minLength(1, 'Choose at least one status.'),
          z.maxLength(CLOSE_STATUSES.length * 2, 'Must be resolved, closed or both.'),
        ),
      ),
      trust_unverified_webhooks: z.optional(yesNo()),
      grace_period_minutes: z.optional(minutes(GRACE_BOUNDS)),
      revoke_unsubmitted_on_close: z.optional(yesNo()),
    }),
  ),
  rotation_signal: z.optional(yesNo()),
});
export type PolicyChanges = z.infer<typeof policyChanges>;

/** A policy, or some of its fields, in the shape the member endpoints show and take. */
export const policyView = (policy: Partial<Omit<Policy, 'ticket'>> & { ticket?: Partial<Policy['ticket']> }) => ({
  ttl_options_minutes: policy.ttlOptionsMinutes,
  default_ttl_minutes: policy.defaultTtlMinutes,
  minimum_verification: policy.minimumVerification,
  default_verification: policy.defaultVerification,
  link_lifetime_minutes: policy.linkLifetimeMinutes,
  ticket: policy.ticket && {
    close_statuses: policy.ticket.closeStatuses,
    trust_unverified_webhooks: policy.ticket.trustUnverifiedWebhooks,
    grace_period_minutes: policy.ticket.gracePeriodMinutes,
    revoke_unsubmitted_on_close: policy.ticket.revokeUnsubmittedOnClose,
  },
  rotation_signal: policy.rotationSignal,
});

const applied = (current: Policy, changes: PolicyChanges): Policy => {
  const ticket = changes.ticket ?? {};
  return {
    ttlOptionsMinutes: changes.ttl_options_minutes ? [...new Set(changes.ttl_options_minutes)].sort((a, b) => a - b) : current.ttlOptionsMinutes,
    defaultTtlMinutes: changes.default_ttl_minutes ?? current.defaultTtlMinutes,
    minimumVerification: changes.minimum_verification ?? current.minimumVerification,
    defaultVerification: changes.default_verification ?? current.defaultVerification,
    linkLifetimeMinutes: changes.link_lifetime_minutes ?? current.linkLifetimeMinutes,
    ticket: {
      closeStatuses: ticket.close_statuses ? CLOSE_STATUSES.filter((status) => ticket.close_statuses!.includes(status)) : current.ticket.closeStatuses,
      trustUnverifiedWebhooks: ticket.trust_unverified_webhooks ?? current.ticket.trustUnverifiedWebhooks,
      gracePeriodMinutes: ticket.grace_period_minutes ?? current.ticket.gracePeriodMinutes,
      revokeUnsubmittedOnClose: ticket.revoke_unsubmitted_on_close ?? current.ticket.revokeUnsubmittedOnClose,
    },
    rotationSignal: changes.rotation_signal ?? current.rotationSignal,
  };
};

/** The rules between fields, each refusal at the field a person would change. */
const refusals = (policy: Policy): FieldErrors => {
  const errors: FieldErrors = {};
  if (!policy.ttlOptionsMinutes.includes(policy.defaultTtlMinutes)) {
    errors.default_ttl_minutes = [`Must be one of the TTL options: ${policy.ttlOptionsMinutes.join(', ')}.`];
  }
  if (!meetsMinimum(policy.defaultVerification, policy.minimumVerification)) {
    const allowed = VERIFICATION_MODES.filter((m) => meetsMinimum(m, policy.minimumVerification));
    errors.default_verification = [`Must meet the minimum verification (${policy.minimumVerification}): one of ${allowed.join(', ')}.`];
  }
  return errors;
};

/**
 * A preset the change would leave unusable: its TTL no longer an option, or its verification below
 * the new minimum. Every request and ticket trigger made from it would be refused, so the change
 * is refused instead, naming the presets to change first. A preset that was unusable already does
 * not hold up an unrelated change.
 */
const presetRefusals = (presets: Preset[], before: Policy, after: Policy): FieldErrors => {
  const errors: FieldErrors = {};
  for (const preset of presets) {
    const ttl = preset.defaults.ttl_minutes;
    if (ttl !== undefined && before.ttlOptionsMinutes.includes(ttl) && !after.ttlOptionsMinutes.includes(ttl)) {
      (errors.ttl_options_minutes ??= []).push(`The preset ${preset.slug} keeps credentials ${ttl} minutes: change it first, or keep ${ttl} among the options.`);
    }
    const mode = preset.defaults.verification_mode;
    if (mode && meetsMinimum(mode, before.minimumVerification) && !meetsMinimum(mode, after.minimumVerification)) {
      (errors.minimum_verification ??= []).push(`The preset ${preset.slug} asks for ${mode}, below this minimum: change it first.`);
    }
  }
  return errors;
};

/** Each field of a view by its dotted name (`ticket.grace_period_minutes`), to tell what changed. */
const flatten = (view: ReturnType<typeof policyView>) => {
  const { ticket, ...top } = view;
  return { ...top, ...Object.fromEntries(Object.entries(ticket ?? {}).map(([name, value]) => [`ticket.${name}`, value])) } as Record<string, unknown>;
};

export interface PolicyChange {
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * Changes the fields named in `rawChanges`; 422 `validation_failed` by field for anything refused
 * (nothing written). Answers the whole policy and what changed; nothing changed writes nothing.
 * `prepared` is given that answer just before a change is stored (a caller's Idempotency-Key keeps
 * it in that transaction, so a retry after a lost answer still says what changed).
 */
export const changePolicy = (deps: Pick<SettingsDeps, 'settings' | 'directory'>, actor: Actor, orgId: string, rawChanges: unknown, prepared?: (result: ChangedPolicy) => void) => {
  const changes = parseOrThrow(policyChanges, rawChanges ?? {});
  // Two saves at once: the later is judged and made again on the policy the earlier left.
  return retryOnConflict(() => changeOnce(deps, actor, orgId, changes, prepared));
};

export type ChangedPolicy = { policy: Policy; changed: PolicyChange[] };

const changeOnce = async (
  deps: Pick<SettingsDeps, 'settings' | 'directory'>,
  actor: Actor,
  orgId: string,
  changes: z.infer<typeof policyChanges>,
  prepared?: (result: ChangedPolicy) => void,
): Promise<ChangedPolicy> => {
  const org = await deps.directory.getOrganisation(orgId);
  if (!org) throw notFound('No such organisation.');
  const policy = applied(org.policy, changes);
  const narrows = changes.ttl_options_minutes !== undefined || changes.minimum_verification !== undefined;
  const errors = { ...refusals(policy), ...(narrows ? presetRefusals(await deps.directory.listPresets(orgId), org.policy, policy) : {}) };
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const before = flatten(policyView(org.policy));
  const after = flatten(policyView(policy));
  const changed: PolicyChange[] = Object.keys(after)
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => ({ field, from: before[field], to: after[field] }));
  if (changed.length > 0) {
    prepared?.({ policy, changed });
    await deps.settings.savePolicy(orgId, policy, org.policyVersion ?? 0, settingsAudit(orgId, actor, 'organisation.policy_changed', { changed }));
  }
  return { policy, changed };
};
