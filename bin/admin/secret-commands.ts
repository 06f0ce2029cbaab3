import { StoredSecrets } from '#store/stored-secrets.ts';
import { sealStoredSecrets } from '#workers/seal-stored-secrets.ts';
import type { Command } from './commands.ts';
import { codeKeyFor, sealerFor } from './secret-keys.ts';
import { EXAMPLE } from './example-values.ts';

export const SECRET_COMMANDS: Record<string, Command> = {
  'seal-stored-secrets': {
    summary: 'seal webhook secrets stored in plain text and re-hash six-digit codes stored unkeyed (run once after upgrading; safe to run again)',
    usage: '[--kms-key KEY_ARN (deployed: the stack output SealingKeyArn)] [--code-key KEY_ARN (deployed: the stack output CodeHashKeyArn)]',
    examples: ['', `--table ${EXAMPLE.table} --region ${EXAMPLE.region} --kms-key ${EXAMPLE.sealingKeyArn} --code-key ${EXAMPLE.codeKeyArn}`],
    run: async (_admin, f, context) =>
      sealStoredSecrets({
        store: new StoredSecrets(context.db, context.tableName),
        sealer: await sealerFor(f, context),
        codeKey: await codeKeyFor(f, context),
        clock: context.clock,
      }),
  },
};
