import type { Clock } from '#core/clock.ts';
import type { CodeKey } from '#core/code-key.ts';
import { codeHash, isKeyedCodeHash, recoverLegacyCode, type CodePurpose } from '#core/codes.ts';
import type { SecretSealer } from '#core/sealing.ts';
import { isLegacyWebhookSecret, webhookSecretContext, type StoredWebhookSecret } from '#core/webhooks.ts';
import type { CodeHashes, StoredItem, StoredSecrets } from '#store/stored-secrets.ts';

/**
 * `npm run admin -- seal-stored-secrets`: brings what was stored before secrets were sealed and
 * codes keyed up to date, in place, one conditional write per item. Running it again changes
 * nothing (every item it rewrote is then in the current form).
 *
 * - A webhook's plain-text signing secrets are sealed for their subscription, as POST /webhooks
 *   now seals them.
 * - A request's unkeyed code hash (salted SHA-256 of a six-digit code) is replaced. While the
 *   code can still be typed (the request pending or opened; an email code not yet expired), the
 *   code is recovered by trying all 10^6 values (about a second: exactly the weakness being
 *   removed) and stored as its keyed hash. Recovering is chosen over keeping a legacy check until
 *   those requests expire because it takes the weak hashes out of the table now, not days later;
 *   the legacy comparison that remains in core/codes.ts only covers the minutes between a deploy
 *   and this run. A code that can no longer be typed has its hash cleared instead.
 */
export interface SealStoredSecretsDeps {
  store: Pick<StoredSecrets, 'candidates' | 'reread' | 'replaceWebhookSecrets' | 'replaceCodeHashes'>;
  sealer: Pick<SecretSealer, 'seal'>;
  codeKey: CodeKey;
  clock: Clock;
}

export interface SealStoredSecretsReport {
  webhooks_sealed: number;
  webhook_secrets_sealed: number;
  requests_rehashed: number;
  code_hashes_rehashed: number;
  code_hashes_cleared: number;
  /** Hashes that matched no six-digit code (not written by this service): cleared, so that code can no longer pass. */
  code_hashes_unrecoverable: number;
  /** Items that kept changing under the command; run it again. */
  items_skipped: number;
}

/** Writes attempted per item before it is left for the next run (each failure means a concurrent change). */
const MAX_TRIES = 5;
const OPEN_STATUSES = new Set(['pending', 'opened']);

const isLegacyHash = (value: unknown): value is string => typeof value === 'string' && !isKeyedCodeHash(value);

export const sealStoredSecrets = async (deps: SealStoredSecretsDeps): Promise<SealStoredSecretsReport> => {
  const report: SealStoredSecretsReport = {
    webhooks_sealed: 0,
    webhook_secrets_sealed: 0,
    requests_rehashed: 0,
    code_hashes_rehashed: 0,
    code_hashes_cleared: 0,
    code_hashes_unrecoverable: 0,
    items_skipped: 0,
  };
  for await (const found of deps.store.candidates()) {
    let item: StoredItem | null = found;
    for (let tries = 0; item; tries++) {
      if (tries >= MAX_TRIES) {
        report.items_skipped += 1;
        break;
      }
      const done = item.kind === 'webhook' ? await sealWebhook(deps, item, report) : await rehashRequest(deps, item, report);
      if (done) break;
      item = await deps.store.reread(item);
    }
  }
  return report;
};

/** True when the item needs nothing more (now or already); false when it changed under the write. */
const sealWebhook = async (deps: SealStoredSecretsDeps, item: StoredItem, report: SealStoredSecretsReport) => {
  const secrets = (item.secrets ?? []) as StoredWebhookSecret[];
  const legacy = secrets.filter(isLegacyWebhookSecret);
  if (legacy.length === 0) return true;
  const context = webhookSecretContext(item.orgId as string, item.id as string);
  const sealed = await Promise.all(
    secrets.map(async (secret) => (isLegacyWebhookSecret(secret) ? { sealed: await deps.sealer.seal(secret.secret, context), expiresAt: secret.expiresAt } : secret)),
  );
  if (!(await deps.store.replaceWebhookSecrets(item, sealed))) return false;
  report.webhooks_sealed += 1;
  report.webhook_secrets_sealed += legacy.length;
  return true;
};

const rehashRequest = async (deps: SealStoredSecretsDeps, item: StoredItem, report: SealStoredSecretsReport) => {
  const requestId = item.id as string;
  const open = OPEN_STATUSES.has(item.status as string);
  const verification = item.verification as { emailCodeHash?: unknown; emailCodeExpiresAt?: string | null } | undefined;
  const emailStillValid = Boolean(verification?.emailCodeExpiresAt && Date.parse(verification.emailCodeExpiresAt) > deps.clock.now().getTime());
  const counts = { rehashed: 0, cleared: 0, unrecoverable: 0 };

  const replacement = async (purpose: CodePurpose, stored: string, typable: boolean): Promise<string | null> => {
    if (!typable) {
      counts.cleared += 1;
      return null;
    }
    const code = recoverLegacyCode(requestId, purpose, stored);
    if (code === null) {
      counts.unrecoverable += 1;
      return null;
    }
    counts.rehashed += 1;
    return codeHash(deps.codeKey, requestId, purpose, code);
  };

  const hashes: CodeHashes = {};
  if (isLegacyHash(item.challengeCodeHash)) hashes.challengeCodeHash = await replacement('challenge', item.challengeCodeHash, open);
  if (isLegacyHash(verification?.emailCodeHash)) hashes.emailCodeHash = await replacement('email', verification.emailCodeHash, open && emailStillValid);
  if (hashes.challengeCodeHash === undefined && hashes.emailCodeHash === undefined) return true;
  if (!(await deps.store.replaceCodeHashes(item, hashes))) return false;
  report.requests_rehashed += 1;
  report.code_hashes_rehashed += counts.rehashed;
  report.code_hashes_cleared += counts.cleared;
  report.code_hashes_unrecoverable += counts.unrecoverable;
  return true;
};
