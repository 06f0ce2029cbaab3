import { generateKeyPairSync, sign as nodeSign, verify } from 'node:crypto';
import { CreateKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { KmsSigningCustody } from '../../../lambdas/adapters/kms-signing.ts';
import { signingKeyPolicy } from '../../../lambdas/access/key-policies.ts';

const kms = mockClient(KMSClient);
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' };
const STACK_KEY = 'arn:aws:kms:eu-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const NEW_KEY = 'arn:aws:kms:eu-west-2:111122223333:key/5678efgh-12ab-34cd-56ef-1234567890ab';
const TAG = { key: 'handoff-custody-signing', value: 'HandoffStack' };

/** KMS stands in for a key pair it never gives out: it answers the SPKI DER public key and signs with the private one. */
const pair = generateKeyPairSync('ed25519');
const spki = new Uint8Array(pair.publicKey.export({ format: 'der', type: 'spki' }));
const rawX = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x as string, 'base64url');

const custody = () => new KmsSigningCustody({ initialKeyArn: STACK_KEY, tag: TAG }, new KMSClient({ region: 'eu-west-2', credentials }));

beforeEach(() => {
  kms.reset();
  kms.on(GetPublicKeyCommand).resolves({ PublicKey: spki, KeySpec: 'ECC_NIST_EDWARDS25519' });
  kms.on(SignCommand).callsFake((input) => ({ Signature: new Uint8Array(nodeSign(null, input.Message, pair.privateKey)), SigningAlgorithm: 'ED25519_SHA_512' }));
});
afterAll(() => kms.restore());

describe('KMS signing custody', () => {
  it("starts with the stack's own key, reading its public key as the raw 32 bytes of the SPKI", async () => {
    const initial = await custody().initialKey();
    expect(initial.keyRef).toBe(STACK_KEY);
    expect(Buffer.from(initial.rawPublicKey)).toEqual(rawX);
    expect(kms.commandCalls(GetPublicKeyCommand)[0].args[0].input).toEqual({ KeyId: STACK_KEY });
    expect(kms.commandCalls(CreateKeyCommand)).toHaveLength(0);
  });

  it('signs the message itself with pure Ed25519 (ED25519_SHA_512, message type RAW), giving a signature the public key verifies', async () => {
    const message = new TextEncoder().encode('{"format":"service-custody/v1"}');
    const signature = await custody().sign(STACK_KEY, message);
    expect(kms.commandCalls(SignCommand)[0].args[0].input).toEqual({ KeyId: STACK_KEY, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' });
    expect(verify(null, message, pair.publicKey, signature)).toBe(true);
  });

  it("makes a rotated key as an Ed25519 signing key carrying the stack's tag, so the certificate function may use it", async () => {
    kms.on(CreateKeyCommand).resolves({ KeyMetadata: { KeyId: 'k', Arn: NEW_KEY } });
    const made = await custody().newKey();
    expect(made.keyRef).toBe(NEW_KEY);
    expect(kms.commandCalls(CreateKeyCommand)[0].args[0].input).toMatchObject({
      KeySpec: 'ECC_NIST_EDWARDS25519',
      KeyUsage: 'SIGN_VERIFY',
      Tags: [{ TagKey: 'handoff-custody-signing', TagValue: 'HandoffStack' }],
    });
    expect(kms.commandCalls(GetPublicKeyCommand)[0].args[0].input).toEqual({ KeyId: NEW_KEY });
  });

  it("gives a rotated key the stack key's policy, not KMS's default: only principals tagged for the stack may sign, the account only administers it", async () => {
    kms.on(CreateKeyCommand).resolves({ KeyMetadata: { KeyId: 'k', Arn: NEW_KEY } });
    await custody().newKey();
    const policy = JSON.parse(kms.commandCalls(CreateKeyCommand)[0].args[0].input.Policy ?? 'null');
    expect(policy).toEqual(signingKeyPolicy({ partition: 'aws', accountId: '111122223333', stackName: 'HandoffStack' }));
    const signing = policy.Statement.filter((s: { Action: string[] }) => s.Action.includes('kms:Sign'));
    expect(signing).toEqual([
      expect.objectContaining({
        Principal: { AWS: 'arn:aws:iam::111122223333:root' },
        Condition: { StringEquals: { 'aws:PrincipalTag/handoff-sign-certificates': 'HandoffStack', 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' } },
      }),
    ]);
    expect(JSON.stringify(policy)).not.toContain('"kms:*"');
  });

  it('refuses a key that is not Ed25519', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    kms.on(GetPublicKeyCommand).resolves({ PublicKey: new Uint8Array(ec.publicKey.export({ format: 'der', type: 'spki' })) });
    await expect(custody().initialKey()).rejects.toThrow(/not an Ed25519 key/);
  });

  it('fails loudly when KMS answers no signature', async () => {
    kms.on(SignCommand).resolves({});
    await expect(custody().sign(STACK_KEY, new Uint8Array([1]))).rejects.toThrow(/no signature/);
  });
});
