import { join } from 'node:path';
import { KmsSigningCustody } from '#adapters/kms-signing.ts';
import type { SigningKeyCustody } from '#core/signing-keys.ts';
import { CertificateSigner } from '#core/use-cases/certificates/certificate-signer.ts';
import { KeyFileSigningCustody } from '#local/key-file-signing.ts';
import { SIGNING_KEYS_FOLDER } from '#local/local-service.ts';
import { DynamoSigningKeys } from '#store/signing-keys.ts';
import { UsageError, type Command, type Flags } from './commands.ts';
import { optionalText } from './flags.ts';
import type { CommandContext } from './target.ts';
import { EXAMPLE } from './example-values.ts';


/**
 * The signing keys' custody: the key files under the local data folder (those npm start signs
 * with), or, for a deployed table, KMS: the stack's key (--signing-key-arn, the stack output
 * SigningKeyArn) and the tag a rotated key must carry so the certificate function may use it
 * (--signing-key-tag, the stack output SigningKeyTag, `name=value`).
 */
const custodyFor = (flags: Flags, context: CommandContext): SigningKeyCustody => {
  if (context.localEngine) return KeyFileSigningCustody.inFolder(join(context.dataDir, SIGNING_KEYS_FOLDER));
  const arn = optionalText(flags, 'signing-key-arn');
  const tag = optionalText(flags, 'signing-key-tag');
  if (!arn || !tag || !tag.includes('=')) {
    throw new UsageError('--signing-key-arn ARN and --signing-key-tag NAME=VALUE (the stack outputs SigningKeyArn and SigningKeyTag) are required for a deployed table');
  }
  const [key, value] = tag.split('=');
  return new KmsSigningCustody({ initialKeyArn: arn, tag: { key, value } });
};

/** Deployed, the stack's key and tag (the stack outputs SigningKeyArn and SigningKeyTag). */
const DEPLOYED_EXAMPLE = `--table ${EXAMPLE.table} --region ${EXAMPLE.region} --signing-key-arn ${EXAMPLE.signingKeyArn} --signing-key-tag handoff-custody-signing=HandoffStack`;

const signerFor = (flags: Flags, context: CommandContext) =>
  new CertificateSigner(custodyFor(flags, context), new DynamoSigningKeys(context.db, context.tableName), context.clock);

/** A key as a person reads it: never where the private half is beyond its reference. */
const described = (record: { kid: string; createdAt: string; retiredAt: string | null; keyRef: string }) => ({
  kid: record.kid,
  state: record.retiredAt ? 'retired' : 'current',
  created_at: record.createdAt,
  retired_at: record.retiredAt,
  key: record.keyRef,
});

export const SIGNING_COMMANDS: Record<string, Command> = {
  'signing-keys': {
    summary: 'Print the custody certificate signing keys (current and retired) and the JWKS they are published as',
    usage: '[--signing-key-arn ARN --signing-key-tag NAME=VALUE]',
    examples: ['', DEPLOYED_EXAMPLE],
    run: async (_admin, flags, context) => {
      const signer = signerFor(flags, context);
      const jwks = await signer.jwks();
      const registry = new DynamoSigningKeys(context.db, context.tableName);
      return { keys: (await registry.list()).map(described), jwks };
    },
  },
  'rotate-signing-key': {
    summary: 'Make a new certificate signing key current; the old one stays published, so its certificates still verify',
    usage: '[--signing-key-arn ARN --signing-key-tag NAME=VALUE]',
    examples: ['', DEPLOYED_EXAMPLE],
    run: async (_admin, flags, context) => {
      const { current, retired } = await signerFor(flags, context).rotate();
      return { current: described(current), retired: described(retired) };
    },
  },
};
