/**
 * What destroying a credential covers, as a certificate states it (document.ts, `destruction`).
 *
 * A destruction deletes the credential's ciphertext from the service's table: a request's sealed
 * envelope and attachments, a share's envelope. It cannot reach the table's point-in-time backups:
 * DynamoDB restores the table to any moment of its recovery period, so a ciphertext deleted at
 * `at` stays restorable until `at` plus that period, encrypted under the table's key. (The table's
 * stream holds keys only, never a ciphertext: store/table.ts.)
 *
 * Shared by the service (which states it) and the verifiers (which check that the date follows from
 * the destruction): browser-safe, no Node imports.
 */

/** The table the service reads and writes, not its backups: what a destruction deletes from. */
export const DESTRUCTION_SCOPE = 'live_table' as const;

/** DynamoDB keeps point-in-time recovery for 1 to 35 days. */
export const MIN_RECOVERY_DAYS = 1;
export const MAX_RECOVERY_DAYS = 35;

const DAY_MS = 86_400_000;

/** What the service's table backups keep, as the service runs: 0 days where there is no point-in-time recovery (the local runtime). */
export interface TableBackups {
  pointInTimeRecoveryDays: number;
}

/** A period a certificate may state: whole days, 0 (no point-in-time recovery) to 35. */
export const isStatedRecoveryDays = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_RECOVERY_DAYS;

/**
 * Until when the backups can restore a ciphertext deleted at `at`: `at` plus the recovery days.
 * Null when no backup holds one: nothing deleted yet, nothing ever stored, or no backups kept.
 */
export const restorableUntil = (at: string | null, stored: boolean, days: number): string | null => {
  if (at === null || !stored || days === 0) return null;
  const time = Date.parse(at);
  return Number.isNaN(time) ? null : new Date(time + days * DAY_MS).toISOString();
};
