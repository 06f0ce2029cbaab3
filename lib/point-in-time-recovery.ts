import { isRecoveryDays, RECOVERY_DAYS_VARIABLE } from '../lambdas/table-backups.ts';
import { MAX_RECOVERY_DAYS, MIN_RECOVERY_DAYS } from '../lambdas/core/custody/backups.ts';
import { ContextError } from './context-error.ts';

/** The context setting: `-c pointInTimeRecoveryDays=N`. */
export const RECOVERY_DAYS_CONTEXT = 'pointInTimeRecoveryDays';

/**
 * How many days of point-in-time recovery the table keeps, unless the deployment says otherwise.
 *
 * Point-in-time recovery is there to undo an operator's mistake or a bad deploy that damaged the
 * table: the audit chain and the sealed credentials awaiting collection. Such damage shows within
 * hours (alarms fire, the API errors, certificates stop verifying), and a week still covers a
 * mistake made before a weekend or a holiday and noticed on the next working days. A longer
 * period buys little more recovery: the credentials it would bring back are kept a day by default
 * and at most a week under the default policy, so most of what a month-old restore brings back has
 * expired anyway, and the chain's past is also witnessed by the certificates customers hold. What
 * a longer period costs is exposure: for each day of it, every destroyed credential's ciphertext
 * stays restorable by whoever may restore the table and use its key, and each certificate has to
 * say so. DynamoDB's default of 35 days is five times as long as the default policy keeps a
 * credential at all.
 */
export const DEFAULT_POINT_IN_TIME_RECOVERY_DAYS = 7;

/**
 * The period from a prop or the context: a whole number of days from 1 to 35 (a number, or its
 * digits as `-c` passes them). Anything else fails the synth: the certificates state this period,
 * so it must be the one deployed.
 */
export const pointInTimeRecoveryDaysOf = (value: unknown): number => {
  if (value === undefined || value === null || value === '') return DEFAULT_POINT_IN_TIME_RECOVERY_DAYS;
  const days = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!isRecoveryDays(days)) {
    throw new ContextError(
      `${RECOVERY_DAYS_CONTEXT} must be a whole number of days from ${MIN_RECOVERY_DAYS} to ${MAX_RECOVERY_DAYS} ` +
        `(DynamoDB's point-in-time recovery period; -c ${RECOVERY_DAYS_CONTEXT}=${DEFAULT_POINT_IN_TIME_RECOVERY_DAYS} is the default), not ${JSON.stringify(value)}`,
    );
  }
  return days;
};

/** The setting the certificate functions read (lambdas/table-backups.ts), to state the period in every certificate. */
export const recoveryEnvironment = (days: number): Readonly<Record<string, string>> => ({ [RECOVERY_DAYS_VARIABLE]: String(days) });
