import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import type { CodeKey } from '#core/code-key.ts';

/**
 * The deployed code key: a KMS HMAC_256 key (CODE_HASH_KEY_ID). The key material never leaves
 * KMS, so neither the table nor a function's memory holds anything that would let a reader try
 * the 10^6 codes offline; every hash is a GenerateMac call, logged in CloudTrail.
 */
export class KmsCodeKey implements CodeKey {
  constructor(
    private readonly keyId: string,
    private readonly client = new KMSClient({}),
  ) {}

  async mac(message: string): Promise<string> {
    const { Mac } = await this.client.send(
      new GenerateMacCommand({ KeyId: this.keyId, MacAlgorithm: 'HMAC_SHA_256', Message: Buffer.from(message, 'utf8') }),
    );
    if (!Mac) throw new Error('KMS GenerateMac returned no MAC');
    return Buffer.from(Mac).toString('hex');
  }
}
