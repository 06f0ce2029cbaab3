import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { WEBHOOK_SIGNING_PURPOSE } from '../lambdas/core/webhooks.ts';
import { OPEN_RIGHT, SEAL_RIGHT, sealingKeyPolicy } from '../lambdas/access/key-policies.ts';
import { keyPolicyContext, keyPolicyDocument, tagKeyRight } from './key-rights.ts';

/** The encryption context every sealed integration secret carries (core/integration.ts integrationSecretContext). */
export const SEALED_SECRET_PURPOSE = 'inbound_auth';
/** The encryption context every sealed webhook signing secret carries (core/webhooks.ts webhookSecretContext). */
export { WEBHOOK_SIGNING_PURPOSE };

/** The encryption context of an integration's sealed helpdesk API credentials (core/helpdesk-connection.ts helpdeskSecretContext). */
export const HELPDESK_CREDENTIALS_PURPOSE = 'helpdesk_credentials';

/** What a sealed value is for; each grant names one, so a function's rights reach no other kind of secret. */
export type SealingPurpose = typeof SEALED_SECRET_PURPOSE | typeof WEBHOOK_SIGNING_PURPOSE | typeof HELPDESK_CREDENTIALS_PURPOSE;

/** Statement ids by purpose: one function could hold rights for two purposes without a clash. */
const OPEN_SID: Record<SealingPurpose, string> = {
  inbound_auth: 'OpenSealedIntegrationSecrets',
  webhook_signing: 'OpenWebhookSigningSecrets',
  helpdesk_credentials: 'OpenHelpdeskCredentials',
};
const SEAL_SID: Record<SealingPurpose, string> = {
  inbound_auth: 'SealIntegrationSecrets',
  webhook_signing: 'SealWebhookSigningSecrets',
  helpdesk_credentials: 'SealHelpdeskCredentials',
};

/**
 * The customer-managed KMS key that seals the secrets the service must read back (an
 * integration's shared header value or signing secret, a webhook's signing secrets, an
 * integration's helpdesk API credentials): envelope encryption, the data key wrapped by this key
 * and bound to the secret's organisation, its integration or webhook, and its purpose.
 *
 * - Yearly automatic rotation; retained when the stack is deleted (losing it loses every sealed secret).
 * - Every grant is for one purpose (`kms:EncryptionContext:purpose`): kms:Decrypt for a function
 *   that opens (the inbound URLs: inbound_auth; the webhook delivery worker: webhook_signing; the
 *   ticket check worker, the reconciliation and the page's ticket check: helpdesk_credentials),
 *   kms:GenerateDataKey for one that seals (the webhook creations and the member app's rotation:
 *   webhook_signing; the member app's integration settings: inbound_auth; the member app's
 *   helpdesk connection: helpdesk_credentials). The operator CLI seals with the operator's own
 *   credentials. (The key's description, which names integration secrets only, is kept as
 *   deployed: changing it would only churn the key resource.)
 * - The key policy (lambdas/access/key-policies.ts) allows each of those six uses only to
 *   principals tagged for it: every grant here tags the function's role, and an operator carries
 *   the tags of the commands they run. The account administers the key and never uses it.
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
      policy: keyPolicyDocument(sealingKeyPolicy(keyPolicyContext(this))),
    });
    this.environment = { SEALING_KEY_ID: this.key.keyArn };
  }

  /** kms:Decrypt of data keys sealed for `purpose` only. */
  grantOpen(fn: lambda.IFunction, purpose: SealingPurpose = SEALED_SECRET_PURPOSE) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: OPEN_SID[purpose],
        actions: ['kms:Decrypt'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': purpose } },
      }),
    );
    tagKeyRight(fn, OPEN_RIGHT[purpose], this.key);
  }

  /** kms:GenerateDataKey for values sealed for `purpose` only: the function can seal, never open. */
  grantSeal(fn: lambda.IFunction, purpose: SealingPurpose) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: SEAL_SID[purpose],
        actions: ['kms:GenerateDataKey'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': purpose } },
      }),
    );
    tagKeyRight(fn, SEAL_RIGHT[purpose], this.key);
  }
}
