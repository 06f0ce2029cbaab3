import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { codeKeyPolicy } from '../lambdas/access/key-policies.ts';
import { keyPolicyContext, keyPolicyDocument, tagKeyRight } from './key-rights.ts';

/**
 * The key the six-digit codes (the spoken challenge code, the emailed one-time code) are hashed
 * with (lambdas/core/codes.ts): a KMS HMAC_256 key. A code has only 10^6 values, so its hash
 * must be keyed with a secret that is not in the table; this one never leaves KMS, so not even a
 * function that uses it can hand it to someone who then tries the codes offline.
 *
 * - Retained when the stack is deleted: a pending request's code could not be checked without it.
 *   (KMS does not rotate HMAC keys automatically; rotating it by hand would only fail the codes
 *   of requests pending at that moment.)
 * - Only the functions that hash or check codes get kms:GenerateMac, with HMAC-SHA-256 only; the
 *   key policy (lambdas/access/key-policies.ts) allows it only to principals tagged to hash codes,
 *   which each grant here tags, so no other principal of the account can compute a code's hash.
 */
export class CodeHashKey extends Construct {
  readonly key: kms.Key;
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Credential Handoff Service: keyed hashes of the six-digit challenge and email codes',
      keySpec: kms.KeySpec.HMAC_256,
      keyUsage: kms.KeyUsage.GENERATE_VERIFY_MAC,
      removalPolicy: RemovalPolicy.RETAIN,
      policy: keyPolicyDocument(codeKeyPolicy(keyPolicyContext(this))),
    });
    this.environment = { CODE_HASH_KEY_ID: this.key.keyArn };
  }

  grantMac(fn: lambda.IFunction) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'HashCodes',
        actions: ['kms:GenerateMac'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:MacAlgorithm': 'HMAC_SHA_256' } },
      }),
    );
    tagKeyRight(fn, 'hashCodes', this.key);
  }
}
