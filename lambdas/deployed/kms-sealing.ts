import { KmsSealer } from '#adapters/kms-sealer.ts';
import { required, type DeployedAdapters } from '../wiring.ts';
import { onFirstUse } from './on-first-use.ts';

/**
 * KMS envelope encryption with SEALING_KEY_ID, built on first use: for the functions that read or
 * write integration, helpdesk or webhook secrets, which alone have the variable (and the key's
 * rights, each for its purpose).
 */
export const kmsSealing = (): Pick<DeployedAdapters, 'sealer'> => {
  const sealer = onFirstUse(() => new KmsSealer({ keyId: required('SEALING_KEY_ID') }));
  return {
    sealer: {
      seal: (plaintext, context) => sealer().seal(plaintext, context),
      open: (sealed, context) => sealer().open(sealed, context),
    },
  };
};
