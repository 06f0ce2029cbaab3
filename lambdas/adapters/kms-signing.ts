import { CreateKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { createPublicKey } from 'node:crypto';
import type { SigningKeyCustody } from '#core/signing-keys.ts';
import { keyPolicyContextOfArn, signingKeyPolicy } from '../access/key-policies.ts';

export interface KmsSigningConfig {
  /** The stack's own signing key (SIGNING_KEY_ARN): the first key when none is registered. */
  initialKeyArn: string;
  /**
   * The tag every signing key carries; the certificate function may sign with any key that has it,
   * so a key made by `rotate-signing-key` works without a redeploy.
   */
  tag: { key: string; value: string };
}

/**
 * Signing keys in AWS KMS (key spec ECC_NIST_EDWARDS25519): the private key never leaves KMS,
 * which signs with ED25519_SHA_512 over the raw message (message type RAW, i.e. pure Ed25519).
 */
export class KmsSigningCustody implements SigningKeyCustody {
  constructor(
    private readonly config: KmsSigningConfig,
    private readonly client = new KMSClient({}),
  ) {}

  async initialKey() {
    return { keyRef: this.config.initialKeyArn, rawPublicKey: await this.rawPublicKey(this.config.initialKeyArn) };
  }

  /**
   * Run by the operator CLI with the operator's rights; the functions cannot create keys. The new
   * key gets the stack key's policy (lambdas/access/key-policies.ts: the tag's value is the stack's
   * name, the account is the stack key's), not KMS's default one, which would let any principal
   * of the account with kms:Sign in its IAM policy sign certificates.
   */
  async newKey() {
    const policy = signingKeyPolicy(keyPolicyContextOfArn(this.config.initialKeyArn, this.config.tag.value));
    const { KeyMetadata } = await this.client.send(
      new CreateKeyCommand({
        KeySpec: 'ECC_NIST_EDWARDS25519',
        KeyUsage: 'SIGN_VERIFY',
        Description: 'Custody certificate signing key',
        Policy: JSON.stringify(policy),
        Tags: [{ TagKey: this.config.tag.key, TagValue: this.config.tag.value }],
      }),
    );
    if (!KeyMetadata?.Arn) throw new Error('KMS CreateKey returned no key');
    return { keyRef: KeyMetadata.Arn, rawPublicKey: await this.rawPublicKey(KeyMetadata.Arn) };
  }

  async sign(keyRef: string, message: Uint8Array) {
    const { Signature } = await this.client.send(
      new SignCommand({ KeyId: keyRef, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }),
    );
    if (!Signature) throw new Error('KMS Sign returned no signature');
    return new Uint8Array(Signature);
  }

  /** KMS answers the public key as SPKI DER; the JWK's `x` is its raw 32 bytes. */
  private async rawPublicKey(keyId: string) {
    const { PublicKey } = await this.client.send(new GetPublicKeyCommand({ KeyId: keyId }));
    if (!PublicKey) throw new Error(`KMS GetPublicKey returned nothing for ${keyId}`);
    const jwk = createPublicKey({ key: Buffer.from(PublicKey), format: 'der', type: 'spki' }).export({ format: 'jwk' });
    if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new Error(`KMS key ${keyId} is not an Ed25519 key`);
    return new Uint8Array(Buffer.from(jwk.x, 'base64url'));
  }
}
