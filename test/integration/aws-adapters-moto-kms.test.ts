/**
 * KmsSealer and KmsCodeKey over HTTP against moto_server, through the real SDK client: sealing
 * and the code key's MAC round trips, and their refusals. The unit tests (test/unit/adapters)
 * check the parameters against a mock that accepts anything; here a service-like server parses
 * and validates them. moto has no Ed25519 keys; the certificate signer keeps its own tests.
 */
import { createHmac } from 'node:crypto';
import { CreateAliasCommand, CreateKeyCommand, DecryptCommand, KMSClient, VerifyMacCommand } from '@aws-sdk/client-kms';
import { beforeAll, describe, expect, it } from 'vitest';
import { KmsCodeKey } from '../../lambdas/adapters/kms-code-key.ts';
import { KmsSealer } from '../../lambdas/adapters/kms-sealer.ts';
import { motoAvailable, useMotoServer } from '../support/moto-server.ts';

const haveMoto = motoAvailable();

describe.skipIf(!haveMoto)('the AWS adapters against moto_server', () => {
  const { client } = useMotoServer();

  describe('KmsSealer', () => {
    let kms: KMSClient;
    let keyArn: string;
    let otherKeyArn: string;
    const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const CONTEXT = { orgId: 'org_1', integrationId: 'int_1', purpose: 'webhook-signing' };

    beforeAll(async () => {
      kms = client(KMSClient);
      // As lib/sealing.ts makes it: a symmetric encryption key, named to the functions by its ARN.
      keyArn = (await kms.send(new CreateKeyCommand({ KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' }))).KeyMetadata!.Arn!;
      otherKeyArn = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.Arn!;
    });

    it('seals under a fresh KMS data key and opens again, in another process (no cached key)', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      expect(sealed).toMatchObject({ v: 1, alg: 'A256GCM', keyId: keyArn });
      expect(Buffer.from(sealed.wrappedKey!, 'base64').length).toBeGreaterThan(32);
      expect(JSON.stringify(sealed)).not.toContain(SECRET);
      expect(await new KmsSealer({ keyId: keyArn }, kms).open(sealed, CONTEXT)).toBe(SECRET);

      // Every seal has a data key of its own.
      const again = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      expect(again.wrappedKey).not.toBe(sealed.wrappedKey);
      expect(again.ciphertext).not.toBe(sealed.ciphertext);

      // The wrapped key is KMS's: a 256-bit key it unwraps under the same encryption context only.
      const { Plaintext, KeyId } = await kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.wrappedKey!, 'base64'), EncryptionContext: CONTEXT }));
      expect(Plaintext).toHaveLength(32);
      expect(KeyId).toBe(keyArn);
      await expect(kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.wrappedKey!, 'base64') }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    });

    it('refuses to open under another context: KMS refuses to unwrap, and a key cached by an earlier open still fails the AES-GCM tag', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      const elsewhere = { ...CONTEXT, integrationId: 'int_2' };
      await expect(new KmsSealer({ keyId: keyArn }, kms).open(sealed, elsewhere)).rejects.toMatchObject({ name: 'InvalidCiphertextException', $metadata: { httpStatusCode: 400 } });
      await expect(new KmsSealer({ keyId: keyArn }, kms).open(sealed, { orgId: 'org_1', integrationId: 'int_1' })).rejects.toMatchObject({ name: 'InvalidCiphertextException' });

      const warm = new KmsSealer({ keyId: keyArn }, kms);
      expect(await warm.open(sealed, CONTEXT)).toBe(SECRET);
      await expect(warm.open(sealed, elsewhere)).rejects.toThrow('sealed secret did not open: another key, another context, or altered');
    });

    it('a sealer configured with another key refuses a secret sealed under the first (Decrypt names its key)', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      await expect(new KmsSealer({ keyId: otherKeyArn }, kms).open(sealed, CONTEXT)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    });

    it('accepts the key by alias as well as by ARN, and records the key ARN in the sealed value', async () => {
      const alias = 'alias/handoff-secrets';
      await kms.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyArn }));
      const sealed = await new KmsSealer({ keyId: alias }, kms).seal(SECRET, CONTEXT);
      expect(sealed.keyId).toBe(keyArn);
      expect(await new KmsSealer({ keyId: alias }, kms).open(sealed, CONTEXT)).toBe(SECRET);
      expect(await new KmsSealer({ keyId: keyArn }, kms).open(sealed, CONTEXT)).toBe(SECRET);
    });

    it('refuses a wrapped key that was altered', async () => {
      const sealed = await new KmsSealer({ keyId: keyArn }, kms).seal(SECRET, CONTEXT);
      const wrapped = Buffer.from(sealed.wrappedKey!, 'base64');
      wrapped[wrapped.length - 1] ^= 0x01;
      await expect(new KmsSealer({ keyId: keyArn }, kms).open({ ...sealed, wrappedKey: wrapped.toString('base64') }, CONTEXT)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    });
  });

  describe('KmsCodeKey', () => {
    let kms: KMSClient;
    let hmacKeyArn: string;
    let otherHmacKeyArn: string;

    beforeAll(async () => {
      kms = client(KMSClient);
      // As lib/code-key.ts makes it.
      const hmacKey = () => kms.send(new CreateKeyCommand({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' }));
      hmacKeyArn = (await hmacKey()).KeyMetadata!.Arn!;
      otherHmacKeyArn = (await hmacKey()).KeyMetadata!.Arn!;
    });

    it('hashes a code with GenerateMac (HMAC-SHA-256) to 64 lowercase hex digits that KMS verifies for that code only', async () => {
      const codeKey = new KmsCodeKey(hmacKeyArn, kms);
      const mac = await codeKey.mac('123456');
      expect(mac).toMatch(/^[0-9a-f]{64}$/);
      expect(await codeKey.mac('123456')).toBe(mac);
      expect(await codeKey.mac('123457')).not.toBe(mac);

      const verify = (message: string) =>
        kms.send(new VerifyMacCommand({ KeyId: hmacKeyArn, MacAlgorithm: 'HMAC_SHA_256', Message: Buffer.from(message, 'utf8'), Mac: Buffer.from(mac, 'hex') }));
      expect(await verify('123456')).toMatchObject({ MacValid: true, MacAlgorithm: 'HMAC_SHA_256' });
      await expect(verify('123457')).rejects.toMatchObject({ name: 'KMSInvalidMacException' });
      // The key never leaves KMS: without it the hash is not a plain or keyless one.
      expect(mac).not.toBe(createHmac('sha256', '').update('123456').digest('hex'));
    });

    it('hashes UTF-8 messages, and another key gives another hash', async () => {
      const message = 'email_code:01hrequest000000000000001:654321:Zoë';
      const mac = await new KmsCodeKey(hmacKeyArn, kms).mac(message);
      await expect(
        kms.send(new VerifyMacCommand({ KeyId: hmacKeyArn, MacAlgorithm: 'HMAC_SHA_256', Message: Buffer.from(message, 'utf8'), Mac: Buffer.from(mac, 'hex') })),
      ).resolves.toMatchObject({ MacValid: true });
      expect(await new KmsCodeKey(otherHmacKeyArn, kms).mac(message)).not.toBe(mac);
    });

    it('refuses a key that is not an HMAC key (a misconfigured CODE_HASH_KEY_ID)', async () => {
      const encryptionKeyArn = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!.Arn!;
      await expect(new KmsCodeKey(encryptionKeyArn, kms).mac('123456')).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
    });
  });
});
