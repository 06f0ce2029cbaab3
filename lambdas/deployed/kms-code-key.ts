import { KmsCodeKey } from '#adapters/kms-code-key.ts';
import { required, type DeployedAdapters } from '../wiring.ts';
import { onFirstUse } from './on-first-use.ts';

/**
 * The KMS HMAC key CODE_HASH_KEY_ID, built on first use: for the functions that hash or check
 * codes, which alone have the variable (and kms:GenerateMac on the key).
 */
export const kmsCodeKey = (): Pick<DeployedAdapters, 'codeKey'> => {
  const codeKey = onFirstUse(() => new KmsCodeKey(required('CODE_HASH_KEY_ID')));
  return { codeKey: { mac: (message) => codeKey().mac(message) } };
};
