/**
 * KMS requests. Locally the code key, the sealer and the signing keys are key files; deployed each
 * call below is one KMS request (lambdas/adapters/kms-*.ts). The meter wraps the local ones and
 * counts the calls a counted function makes, by KMS's price class: HMAC and symmetric
 * (GenerateMac, GenerateDataKey, Decrypt) or the Ed25519 signing key's (Sign, GetPublicKey).
 * The deployed sealer keeps opened data keys for five minutes, so its Decrypt count is at most the
 * count here.
 */
import type { CodeKey } from '../../lambdas/core/code-key.ts';
import type { SecretSealer } from '../../lambdas/core/sealing.ts';
import type { SigningKeyCustody } from '../../lambdas/core/signing-keys.ts';
import type { InvocationMeter } from './invocation-meter.ts';

export class KmsMeter {
  symmetricRequests = 0;
  asymmetricRequests = 0;

  constructor(private readonly invocations: InvocationMeter) {}

  private count(kind: 'symmetricRequests' | 'asymmetricRequests') {
    if (this.invocations.current()) this[kind] += 1;
  }

  /** GenerateMac per hash. */
  codeKey(inner: CodeKey): CodeKey {
    return { mac: (message) => (this.count('symmetricRequests'), inner.mac(message)) };
  }

  /** GenerateDataKey per seal, Decrypt per open. */
  sealer(inner: SecretSealer): SecretSealer {
    return {
      seal: (plaintext, context) => (this.count('symmetricRequests'), inner.seal(plaintext, context)),
      open: (sealed, context) => (this.count('symmetricRequests'), inner.open(sealed, context)),
    };
  }

  /** Sign per signature, GetPublicKey per initial key; a new key is the operator's CLI, never a function's. */
  signing(inner: SigningKeyCustody): SigningKeyCustody {
    return {
      initialKey: () => (this.count('asymmetricRequests'), inner.initialKey()),
      newKey: () => inner.newKey(),
      sign: (keyRef, message) => (this.count('asymmetricRequests'), inner.sign(keyRef, message)),
    };
  }

  reset() {
    this.symmetricRequests = 0;
    this.asymmetricRequests = 0;
  }
}
