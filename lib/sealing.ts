import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** The encryption context every sealed integration secret carries (core/integration.ts integrationSecretContext). */
export const SEALED_SECRET_PURPOSE = 'inbound_auth';

/**
 * The customer-managed KMS key that seals the secrets the service must read back (an
 * integration's shared header value or signing secret): envelope encryption, the data key
 * wrapped by this key and bound to the secret's organisation, integration and purpose.
 *
 * - Yearly automatic rotation; retained when the stack is deleted (losing it loses every sealed secret).
 * - Functions get only kms:Decrypt, and only for values sealed for an inbound URL check
 *   (`kms:EncryptionContext:purpose`). Sealing happens in the operator CLI (and later the app),
 *   with the operator's own credentials, through GenerateDataKey.
 */
export class SealingKey extends Construct {
  readonly key: kms.Key;
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Credential Handoff Service: seals integration secrets (shared header values, signing secrets)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.environment = { SEALING_KEY_ID: this.key.keyArn };
  }

  grantOpen(fn: lambda.IFunction) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'OpenSealedIntegrationSecrets',
        actions: ['kms:Decrypt'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SEALED_SECRET_PURPOSE } },
      }),
    );
  }
}
