import { MAX_RECOVERY_DAYS, MIN_RECOVERY_DAYS, type TableBackups } from './core/custody/backups.ts';
import type { AppDeps } from './app-deps.ts';

/**
 * The table's point-in-time recovery period in days, as the stack configured it (lib/table.ts):
 * set on the functions that issue certificates, which state it in every one.
 */
export const RECOVERY_DAYS_VARIABLE = 'POINT_IN_TIME_RECOVERY_DAYS';

/** Whole days of point-in-time recovery DynamoDB accepts: 1 to 35. */
export const isRecoveryDays = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= MIN_RECOVERY_DAYS && (value as number) <= MAX_RECOVERY_DAYS;

/**
 * What the table's backups keep: the dependencies' own (the local runtime has no point-in-time
 * recovery) or, deployed, the stack's setting. A missing or malformed setting fails the certificate
 * rather than letting it state a period the table does not have.
 */
export const tableBackupsOf = (deps: Pick<AppDeps, 'tableBackups'>, env: NodeJS.ProcessEnv = process.env): TableBackups => {
  if (deps.tableBackups) return deps.tableBackups;
  const text = env[RECOVERY_DAYS_VARIABLE];
  const days = text !== undefined && /^\d+$/.test(text) ? Number(text) : NaN;
  if (!isRecoveryDays(days)) throw new Error(`${RECOVERY_DAYS_VARIABLE} must be a whole number of days from ${MIN_RECOVERY_DAYS} to ${MAX_RECOVERY_DAYS}, not ${JSON.stringify(text)}`);
  return { pointInTimeRecoveryDays: days };
};
