import { join } from 'node:path';
import { KmsCodeKey } from '#adapters/kms-code-key.ts';
import { KmsSealer } from '#adapters/kms-sealer.ts';
import type { CodeKey } from '#core/code-key.ts';
import type { SecretSealer } from '#core/sealing.ts';
import { KeyFileCodeKey } from '#local/key-file-code-key.ts';
import { KeyFileSealer } from '#local/key-file-sealer.ts';
import { CODE_HASH_KEY_FILE, SEALING_KEY_FILE } from '#local/local-service.ts';
import { UsageError, type Flags } from './commands.ts';
import { optionalText } from './flags.ts';
import type { CommandContext } from './target.ts';


/**
 * The sealer of integration and webhook secrets: the local key file under the data folder (the one
 * npm start uses), or, for a deployed table, KMS with --kms-key (or SEALING_KEY_ID), the stack's
 * sealing key, used with the operator's own credentials. The key policy allows each use only to
 * principals tagged for it with the stack's name (lambdas/access/key-policies.ts): sealing an
 * integration secret `handoff-seal-inbound-auth`, a webhook secret `handoff-seal-webhook-signing`,
 * signing a delivery now (ping, redeliver) `handoff-open-webhook-signing`.
 */
export const sealerFor = async (flags: Flags, context: CommandContext): Promise<SecretSealer> => {
  if (context.localEngine) return KeyFileSealer.fromFile(join(context.dataDir, SEALING_KEY_FILE));
  const keyId = optionalText(flags, 'kms-key') ?? process.env.SEALING_KEY_ID;
  if (!keyId) throw new UsageError('--kms-key KEY_ARN (the stack output SealingKeyArn) is required for a deployed table');
  return new KmsSealer({ keyId });
};

/**
 * The key the six-digit codes are hashed with: the local key file under the data folder, or, for
 * a deployed table, the KMS HMAC key of --code-key (or CODE_HASH_KEY_ID), which the operator may
 * use when tagged `handoff-hash-codes` with the stack's name.
 */
export const codeKeyFor = async (flags: Flags, context: CommandContext): Promise<CodeKey> => {
  if (context.localEngine) return KeyFileCodeKey.fromFile(join(context.dataDir, CODE_HASH_KEY_FILE));
  const keyId = optionalText(flags, 'code-key') ?? process.env.CODE_HASH_KEY_ID;
  if (!keyId) throw new UsageError('--code-key KEY_ARN (the stack output CodeHashKeyArn) is required for a deployed table');
  return new KmsCodeKey(keyId);
};
