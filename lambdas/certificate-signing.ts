import { KmsSigningCustody } from '#adapters/kms-signing.ts';
import type { SigningKeyCustody } from '#core/signing-keys.ts';
import { CertificateSigner } from '#core/use-cases/certificates/certificate-signer.ts';
import { DynamoSigningKeys } from '#store/signing-keys.ts';
import type { AppDeps } from './app-deps.ts';
import { required } from './wiring.ts';

const signers = new WeakMap<object, CertificateSigner>();

/**
 * The certificate signer of a set of dependencies, built on first use and kept with them: the
 * custody they name (key files locally, in tests) or, deployed, the stack's KMS signing keys.
 * Only the certificate and key-publishing functions import this module, so no other function's
 * bundle carries the signer or KMS signing, which it would never call.
 */
export const signerOf = (deps: Pick<AppDeps, 'signingCustody' | 'db' | 'tableName' | 'clock'>): CertificateSigner => {
  let signer = signers.get(deps);
  if (!signer) {
    signer = new CertificateSigner(deps.signingCustody ?? kmsSigning(), new DynamoSigningKeys(deps.db, deps.tableName), deps.clock);
    signers.set(deps, signer);
  }
  return signer;
};

/**
 * KMS signing keys, configured from SIGNING_KEY_ARN (the stack's key) and SIGNING_KEY_TAG
 * (`key=value`, the tag every signing key carries), built on first use: only the certificate and
 * key-publishing functions have the variables and the rights.
 */
const kmsSigning = (): SigningKeyCustody => {
  let built: KmsSigningCustody | undefined;
  const custody = () => {
    if (built) return built;
    const [key, value] = required('SIGNING_KEY_TAG').split('=');
    return (built = new KmsSigningCustody({ initialKeyArn: required('SIGNING_KEY_ARN'), tag: { key, value } }));
  };
  return {
    initialKey: () => custody().initialKey(),
    newKey: () => custody().newKey(),
    sign: (keyRef, message) => custody().sign(keyRef, message),
  };
};
