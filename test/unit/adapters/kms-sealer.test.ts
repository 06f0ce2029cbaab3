import { createDecipheriv } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, IncorrectKeyException, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { KmsSealer } from '../../../lambdas/adapters/kms-sealer.ts';
import { contextAad, type SealedSecret, type SecretSealer } from '../../../lambdas/core/sealing.ts';

const kms = mockClient(KMSClient);
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' };
const CONFIG = { keyId: 'alias/handoff-secrets' };
const KEY_ARN = 'arn:aws:kms:eu-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const DATA_KEY = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const WRAPPED = Buffer.from('wrapped-data-key-as-kms-returns-it');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONTEXT = { orgId: 'org_1', integrationId: 'int_1', purpose: 'webhook-signing' };

let clock = Date.parse('2025-03-04T05:06:07.000Z');
const sealer = () => new KmsSealer(CONFIG, new KMSClient({ region: 'eu-west-2', credentials }), () => clock);
/** Used through the SecretSealer port, as the use cases see it. */
const port = (): SecretSealer => sealer();

// Fresh copies every call: the sealer zeroes the plaintext data key it is given.
const generates = (wrapped: Uint8Array = WRAPPED) =>
  kms.on(GenerateDataKeyCommand).callsFake(() => ({ KeyId: KEY_ARN, Plaintext: Uint8Array.from(DATA_KEY), CiphertextBlob: Uint8Array.from(wrapped) }));
const decrypts = () => kms.on(DecryptCommand).callsFake(() => ({ KeyId: KEY_ARN, Plaintext: Uint8Array.from(DATA_KEY) }));

beforeEach(() => {
  kms.reset();
  clock = Date.parse('2025-03-04T05:06:07.000Z');
});
afterAll(() => kms.restore());

describe('seal', () => {
  it('asks KMS for an AES-256 data key under the configured key, with the context as encryption context', async () => {
    generates();
    await port().seal(SECRET, CONTEXT);
    expect(kms.calls()).toHaveLength(1);
    expect(kms.commandCalls(GenerateDataKeyCommand)[0].args[0].input).toEqual({ KeyId: 'alias/handoff-secrets', KeySpec: 'AES_256', EncryptionContext: CONTEXT });
  });

  it('stores the wrapped key and the key ARN KMS used, and encrypts under the data key with the context as AAD', async () => {
    generates();
    const sealed = await port().seal(SECRET, CONTEXT);
    expect(sealed).toMatchObject({ v: 1, alg: 'A256GCM', keyId: KEY_ARN, wrappedKey: WRAPPED.toString('base64') });
    const decipher = createDecipheriv('aes-256-gcm', DATA_KEY, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(contextAad(CONTEXT));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    expect(Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString()).toBe(SECRET);
    expect(JSON.stringify(sealed)).not.toContain(SECRET);
    expect(JSON.stringify(sealed)).not.toContain(DATA_KEY.toString('base64'));
  });

  it('zeroes the plaintext data key once it has sealed', async () => {
    const plaintext = Uint8Array.from(DATA_KEY);
    kms.on(GenerateDataKeyCommand).resolves({ KeyId: KEY_ARN, Plaintext: plaintext, CiphertextBlob: WRAPPED });
    await port().seal(SECRET, CONTEXT);
    expect(plaintext.every((byte) => byte === 0)).toBe(true);
  });

  it('passes a KMS error on', async () => {
    kms.on(GenerateDataKeyCommand).rejects(new IncorrectKeyException({ message: 'no', $metadata: {} }));
    await expect(port().seal(SECRET, CONTEXT)).rejects.toBeInstanceOf(IncorrectKeyException);
  });
});

describe('open', () => {
  it('asks KMS to unwrap the data key under the configured key and the same context, then opens locally', async () => {
    generates();
    decrypts();
    const sealed = await port().seal(SECRET, CONTEXT);
    await expect(port().open(sealed, CONTEXT)).resolves.toBe(SECRET);
    const [call] = kms.commandCalls(DecryptCommand);
    expect(call.args[0].input).toEqual({ CiphertextBlob: WRAPPED, EncryptionContext: CONTEXT, KeyId: 'alias/handoff-secrets' });
    expect(Buffer.isBuffer(call.args[0].input.CiphertextBlob)).toBe(true);
  });

  it('calls KMS once for two opens of one value within five minutes, and again after', async () => {
    generates();
    decrypts();
    const sealed = await port().seal(SECRET, CONTEXT);
    const warm = sealer();
    await expect(warm.open(sealed, CONTEXT)).resolves.toBe(SECRET);
    clock += 4 * 60_000;
    await expect(warm.open(sealed, CONTEXT)).resolves.toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
    clock += 60_000;
    await expect(warm.open(sealed, CONTEXT)).resolves.toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(2);
  });

  it('still refuses another context when the data key comes from the cache', async () => {
    generates();
    decrypts();
    const sealed = await port().seal(SECRET, CONTEXT);
    const warm = sealer();
    await warm.open(sealed, CONTEXT);
    await expect(warm.open(sealed, { ...CONTEXT, integrationId: 'int_2' })).rejects.toThrow(/did not open/);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
  });

  it('keeps at most 100 data keys, dropping the oldest', async () => {
    decrypts();
    const warm = sealer();
    const values: SealedSecret[] = [];
    for (let i = 0; i <= 100; i += 1) {
      generates(Buffer.from(`wrapped-${i}`));
      values.push(await warm.seal(SECRET, CONTEXT));
    }
    for (const value of values) await warm.open(value, CONTEXT);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(101);
    await warm.open(values[100], CONTEXT);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(101);
    await warm.open(values[0], CONTEXT);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(102);
  });

  it('passes a Decrypt error on, and caches nothing', async () => {
    generates();
    const sealed = await port().seal(SECRET, CONTEXT);
    kms.on(DecryptCommand).rejectsOnce(new IncorrectKeyException({ message: 'The key ID in the request does not identify a CMK that can perform this operation.', $metadata: {} }));
    const warm = sealer();
    await expect(warm.open(sealed, CONTEXT)).rejects.toBeInstanceOf(IncorrectKeyException);
    decrypts();
    await expect(warm.open(sealed, CONTEXT)).resolves.toBe(SECRET);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(2);
  });

  it('refuses a value sealed by the local key file without calling KMS', async () => {
    const local: SealedSecret = { v: 1, alg: 'A256GCM', keyId: 'local:0123456789abcdef', iv: 'aQ==', ciphertext: 'Yw==', tag: 'dA==' };
    await expect(port().open(local, CONTEXT)).rejects.toThrow(/without a KMS-wrapped key/);
    expect(kms.calls()).toHaveLength(0);
  });

  it('refuses an altered ciphertext', async () => {
    generates();
    decrypts();
    const sealed = await port().seal(SECRET, CONTEXT);
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0] ^= 1;
    await expect(port().open({ ...sealed, ciphertext: bytes.toString('base64') }, CONTEXT)).rejects.toThrow(/did not open/);
  });
});
