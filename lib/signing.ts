import { RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { signingKeyPolicy } from '../lambdas/access/key-policies.ts';
import { keyPolicyContext, keyPolicyDocument, tagKeyRight } from './key-rights.ts';

/** The tag every certificate signing key of a stack carries: the stack's own key and every rotated one. */
export const SIGNING_KEY_TAG = 'handoff-custody-signing';

/**
 * The custody certificate signing key (DESIGN.md, Certificates): an Ed25519 KMS key
 * (ECC_NIST_EDWARDS25519, SIGN_VERIFY) whose private half never leaves KMS.
 *
 * - Retained when the stack is deleted: its public key verifies every certificate it signed, and
 *   it stays published in the JWKS. KMS does not rotate asymmetric keys; `npm run admin --
 *   rotate-signing-key` makes a new key with the same tag and keeps the old one published.
 * - The certificate function may sign (pure Ed25519: ED25519_SHA_512 over the RAW message) and
 *   read public keys, with any key of the account carrying this stack's tag, so a rotated key
 *   works without a redeploy; the keys function may only read public keys.
 * - The key policy (lambdas/access/key-policies.ts, the same one `rotate-signing-key` gives a new
 *   key) allows kms:Sign only to principals tagged to sign certificates, which grantSign tags: no
 *   other principal of the account can sign a certificate, whatever its IAM policy says. Anyone of
 *   the account may read the public key, which the JWKS publishes anyway.
 */
export class CertificateSigningKey extends Construct {
  readonly key: kms.Key;
  readonly environment: Readonly<Record<string, string>>;
  private readonly tagValue: string;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.tagValue = Stack.of(this).stackName;
    this.key = new kms.Key(this, 'Key', {
      description: 'Credential Handoff Service: signs custody certificates (Ed25519)',
      keySpec: kms.KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
      policy: keyPolicyDocument(signingKeyPolicy(keyPolicyContext(this))),
    });
    Tags.of(this.key).add(SIGNING_KEY_TAG, this.tagValue);
    this.environment = { SIGNING_KEY_ARN: this.key.keyArn, SIGNING_KEY_TAG: `${SIGNING_KEY_TAG}=${this.tagValue}` };
  }

  /** The keys of this stack, by tag: the stack's own and those `rotate-signing-key` made. */
  private taggedKeys(sid: string, actions: string[], alsoEqual: Record<string, string> = {}) {
    return new iam.PolicyStatement({
      sid,
      actions,
      resources: [Stack.of(this).formatArn({ service: 'kms', resource: 'key', resourceName: '*' })],
      conditions: { StringEquals: { [`aws:ResourceTag/${SIGNING_KEY_TAG}`]: this.tagValue, ...alsoEqual } },
    });
  }

  grantSign(fn: lambda.IFunction) {
    fn.addToRolePolicy(
      this.taggedKeys('SignCustodyCertificates', ['kms:Sign'], { 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' }),
    );
    this.grantReadPublicKeys(fn);
    tagKeyRight(fn, 'signCertificates', this.key);
  }

  grantReadPublicKeys(fn: lambda.IFunction) {
    fn.addToRolePolicy(this.taggedKeys(`ReadSigningPublicKeys`, ['kms:GetPublicKey']));
  }
}
