import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { openWithKey, sealWithKey } from '#core/aes-gcm.ts';
import { setNewest } from '#core/bounded-map.ts';
import { contextAad, isSealedSecret, type SealedSecret, type SecretSealer } from '#core/sealing.ts';

export interface KmsSealerConfig {
  /** The KMS key that wraps data keys (SEALING_KEY_ID): key id, key ARN or alias. */
  keyId: string;
}

/**
 * A hot inbound endpoint opens the same integration secret on every post; without a cache each post
 * would wait on a KMS round trip and spend KMS request quota. Five minutes bounds how long a key
 * whose use has been revoked in IAM keeps working in a warm function. A cache hit skips KMS's own
 * encryption-context check, but the context is also the AES-GCM AAD, so it is still enforced.
 */
const MAX_CACHED_KEYS = 100;
const CACHE_TTL_MS = 5 * 60_000;

/** A view over the SDK's bytes, not a copy, so zeroing it wipes the only plaintext copy. */
const bufferOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Envelope encryption: KMS makes a fresh AES-256 data key for every seal and returns it both in the
 * clear (used once here, then zeroed) and wrapped under the KMS key (stored beside the ciphertext).
 * The context is passed to KMS as the encryption context and used locally as the AAD.
 */
export class KmsSealer implements SecretSealer {
  private readonly dataKeys = new Map<string, { key: Buffer; expiresAt: number }>();

  constructor(
    private readonly config: KmsSealerConfig,
    private readonly client = new KMSClient({}),
    private readonly now: () => number = () => Date.now(),
  ) {}

  async seal(plaintext: string, context: Record<string, string>): Promise<SealedSecret> {
    const aad = contextAad(context);
    const { KeyId, Plaintext, CiphertextBlob } = await this.client.send(
      new GenerateDataKeyCommand({ KeyId: this.config.keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (!KeyId || !Plaintext || !CiphertextBlob) throw new Error('KMS GenerateDataKey returned no data key');
    const key = bufferOf(Plaintext);
    try {
      return { v: 1, alg: 'A256GCM', keyId: KeyId, wrappedKey: Buffer.from(CiphertextBlob).toString('base64'), ...sealWithKey(key, plaintext, aad) };
    } finally {
      key.fill(0);
    }
  }

  async open(sealed: SealedSecret, context: Record<string, string>): Promise<string> {
    if (!isSealedSecret(sealed)) throw new Error('not a sealed secret');
    if (!sealed.wrappedKey) throw new Error(`sealed secret was sealed by ${sealed.keyId} without a KMS-wrapped key; it cannot be opened here`);
    const aad = contextAad(context);
    const key = await this.dataKey(sealed.wrappedKey, context);
    return openWithKey(key, sealed, aad);
  }

  private async dataKey(wrappedKey: string, context: Record<string, string>): Promise<Buffer> {
    const cached = this.dataKeys.get(wrappedKey);
    if (cached && cached.expiresAt > this.now()) return cached.key;
    this.dataKeys.delete(wrappedKey);
    const { Plaintext } = await this.client.send(
      // Naming the key makes KMS refuse a wrapped key made under any other key.
      new DecryptCommand({ CiphertextBlob: Buffer.from(wrappedKey, 'base64'), EncryptionContext: context, KeyId: this.config.keyId }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt returned no data key');
    const key = bufferOf(Plaintext);
    // Oldest first, which is also soonest to expire. Evicted keys are dropped, not zeroed: a
    // concurrent open may still be about to use one.
    setNewest(this.dataKeys, wrappedKey, { key, expiresAt: this.now() + CACHE_TTL_MS }, MAX_CACHED_KEYS);
    return key;
  }
}
