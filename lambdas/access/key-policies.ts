/**
 * The key policies of the service's four KMS keys, as plain JSON, so the stack (lib/) and the
 * operator CLI (a signing key made by `rotate-signing-key`) write the same ones.
 *
 * KMS's default key policy lets the account delegate `kms:*` to IAM: any role of the account with
 * `kms:*` on `*` (an administrator, a broad CI role) could then sign custody certificates, open
 * sealed secrets or read the table. Instead, each policy:
 *
 * - lets the account administer the key (describe it, enable or disable it, change its policy,
 *   tags, description and rotation, list and revoke grants, schedule or cancel its deletion) and
 *   never use it;
 * - allows each cryptographic use only to principals of the account carrying that use's tag with
 *   the stack's name as its value (`aws:PrincipalTag/<tag>`): the stack tags exactly the function
 *   roles it grants that use (lib/key-rights.ts), and an operator's role or user carries the tags
 *   of the commands they run. The principal's own IAM policy must allow the call as well: the
 *   tag opens the key policy, the role's statement names the key and its conditions;
 * - the table's key: uses only through DynamoDB (`kms:ViaService`), and CreateGrant only for
 *   DynamoDB's own grants on the table (`kms:GrantIsForAWSResource`), which it creates on behalf
 *   of whoever creates or restores the table; the bootstrap's CloudFormation role, which creates
 *   the tables at deploy and carries none of our tags, is named by its ARN (`aws:PrincipalArn`),
 *   through DynamoDB only;
 * - the signing key: anyone of the account may read its public half, which the JWKS publishes.
 *
 * A tag is only as strong as the right to set it: `iam:TagRole`, `iam:TagUser` and
 * `sts:TagSession` for the `handoff-*` tag keys belong to administrators (docs/deploying.md).
 */

/** The uses of the keys, each allowed by a principal tag of its own. */
export const KEY_RIGHT_TAGS = {
  /** The table and its stream, read through DynamoDB (kms:Decrypt). */
  readTable: 'handoff-table-read',
  /** The table read and written through DynamoDB (kms:Decrypt, Encrypt, GenerateDataKey). */
  writeTable: 'handoff-table-write',
  /**
   * A table made under the key through DynamoDB (DEPLOY_ROLE_TABLE_ACTIONS): no function's; for a
   * deploy role other than the bootstrap's, and an operator restoring the table to a point in time.
   */
  createTable: 'handoff-table-create',
  /** kms:Decrypt of data keys sealed for `inbound_auth` (integration secrets). */
  openIntegrationSecrets: 'handoff-open-inbound-auth',
  /** kms:Decrypt of data keys sealed for `webhook_signing`. */
  openWebhookSecrets: 'handoff-open-webhook-signing',
  /** kms:GenerateDataKey for `inbound_auth`. */
  sealIntegrationSecrets: 'handoff-seal-inbound-auth',
  /** kms:GenerateDataKey for `webhook_signing`. */
  sealWebhookSecrets: 'handoff-seal-webhook-signing',
  /** kms:Decrypt of data keys sealed for `helpdesk_credentials` (an integration's helpdesk API credentials). */
  openHelpdeskCredentials: 'handoff-open-helpdesk-credentials',
  /** kms:GenerateDataKey for `helpdesk_credentials`. */
  sealHelpdeskCredentials: 'handoff-seal-helpdesk-credentials',
  /** kms:GenerateMac (HMAC-SHA-256) with the code key. */
  hashCodes: 'handoff-hash-codes',
  /** kms:Sign (pure Ed25519) with the certificate signing keys. */
  signCertificates: 'handoff-sign-certificates',
} as const;

export type KeyRight = keyof typeof KEY_RIGHT_TAGS;

/** The purposes a sealed value is bound to (its encryption context's `purpose`). */
export type SealPurpose = 'inbound_auth' | 'webhook_signing' | 'helpdesk_credentials';

export const OPEN_RIGHT: Readonly<Record<SealPurpose, KeyRight>> = {
  inbound_auth: 'openIntegrationSecrets',
  webhook_signing: 'openWebhookSecrets',
  helpdesk_credentials: 'openHelpdeskCredentials',
};
export const SEAL_RIGHT: Readonly<Record<SealPurpose, KeyRight>> = {
  inbound_auth: 'sealIntegrationSecrets',
  webhook_signing: 'sealWebhookSecrets',
  helpdesk_credentials: 'sealHelpdeskCredentials',
};

/**
 * Managing a key, never using it: no Decrypt, Encrypt, GenerateDataKey*, ReEncrypt*, Sign,
 * GenerateMac and no CreateGrant (a grant could hand any of those to anyone).
 */
export const KEY_ADMINISTRATION_ACTIONS = [
  'kms:DescribeKey',
  'kms:GetKeyPolicy',
  'kms:ListKeyPolicies',
  'kms:PutKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:EnableKeyRotation',
  'kms:DisableKeyRotation',
  'kms:ListKeyRotations',
  'kms:RotateKeyOnDemand',
  'kms:EnableKey',
  'kms:DisableKey',
  'kms:UpdateKeyDescription',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ListResourceTags',
  'kms:ListGrants',
  'kms:RevokeGrant',
  'kms:CreateAlias',
  'kms:UpdateAlias',
  'kms:DeleteAlias',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
] as const;

export interface KeyPolicyContext {
  /** `aws`, `aws-cn`, ... (a CloudFormation token in the stack). */
  partition: string;
  /** The account that owns the key (a token in the stack). */
  accountId: string;
  /** The stack's name: the value every right's tag carries. */
  stackName: string;
}

export interface KeyPolicyStatement {
  Sid: string;
  Effect: 'Allow';
  Principal: { AWS: string };
  Action: string[];
  Resource: '*';
  Condition?: Record<string, Record<string, string>>;
}

export interface KeyPolicyDocument {
  Version: '2012-10-17';
  Statement: KeyPolicyStatement[];
}

const accountOf = (context: KeyPolicyContext) => ({ AWS: `arn:${context.partition}:iam::${context.accountId}:root` });

/** The condition that limits a statement to principals carrying `right`'s tag for this stack. */
export const principalTagCondition = (right: KeyRight, context: KeyPolicyContext) => ({ [`aws:PrincipalTag/${KEY_RIGHT_TAGS[right]}`]: context.stackName });

const administration = (context: KeyPolicyContext): KeyPolicyStatement => ({
  Sid: 'AdministerKey',
  Effect: 'Allow',
  Principal: accountOf(context),
  Action: [...KEY_ADMINISTRATION_ACTIONS],
  Resource: '*',
});

/** One use of the key, for the principals tagged with `right`; `also` adds the use's own conditions. */
const use = (sid: string, right: KeyRight, actions: string[], context: KeyPolicyContext, also: Record<string, string> = {}): KeyPolicyStatement => ({
  Sid: sid,
  Effect: 'Allow',
  Principal: accountOf(context),
  Action: actions,
  Resource: '*',
  Condition: { StringEquals: { ...principalTagCondition(right, context), ...also } },
});

const policy = (...statements: KeyPolicyStatement[]): KeyPolicyDocument => ({ Version: '2012-10-17', Statement: statements });

/** The table's key: DynamoDB uses it on behalf of the tagged functions (and operators), and makes its own grants. */
export const tableKeyPolicy = (context: KeyPolicyContext & { dynamoDbService: string }): KeyPolicyDocument => {
  const viaDynamoDb = { 'kms:ViaService': context.dynamoDbService };
  return policy(
    administration(context),
    {
      Sid: 'DynamoDBGrantsForTheTable',
      Effect: 'Allow',
      Principal: accountOf(context),
      Action: ['kms:CreateGrant'],
      Resource: '*',
      Condition: { StringEquals: viaDynamoDb, Bool: { 'kms:GrantIsForAWSResource': 'true' } },
    },
    use('ReadTableThroughDynamoDB', 'readTable', ['kms:Decrypt'], context, viaDynamoDb),
    use('WriteTableThroughDynamoDB', 'writeTable', ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'], context, viaDynamoDb),
    {
      // DynamoDB makes the table's own key with the credentials of whoever creates (or restores)
      // the table: at deploy, the bootstrap's CloudFormation role, which carries no tag of ours.
      // DynamoDB's documented minimum for that principal, through DynamoDB only.
      Sid: 'DeployRoleCreatesTheTables',
      Effect: 'Allow',
      Principal: accountOf(context),
      Action: [...DEPLOY_ROLE_TABLE_ACTIONS],
      Resource: '*',
      Condition: { StringEquals: viaDynamoDb, ArnLike: { 'aws:PrincipalArn': deployRoleArnPattern(context) } },
    },
    // The same for a principal tagged for it: a deploy role of another name, or an operator
    // restoring the table to a point in time (which makes a new table under this key).
    use('TaggedRoleCreatesOrRestoresTables', 'createTable', [...DEPLOY_ROLE_TABLE_ACTIONS], context, viaDynamoDb),
  );
};

/** What creating or restoring a table under the key takes of its creator (DynamoDB's documented minimum, DescribeKey and CreateGrant above). */
export const DEPLOY_ROLE_TABLE_ACTIONS = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'] as const;

/** The CloudFormation execution role `cdk bootstrap` makes, whatever its qualifier and region. */
export const deployRoleArnPattern = (context: KeyPolicyContext) => `arn:${context.partition}:iam::${context.accountId}:role/cdk-*-cfn-exec-role-*`;

/** The sealing key: each purpose opened and sealed by the principals tagged for it. */
export const sealingKeyPolicy = (context: KeyPolicyContext): KeyPolicyDocument => {
  const purpose = (value: SealPurpose) => ({ 'kms:EncryptionContext:purpose': value });
  return policy(
    administration(context),
    use('OpenSealedIntegrationSecrets', OPEN_RIGHT.inbound_auth, ['kms:Decrypt'], context, purpose('inbound_auth')),
    use('OpenWebhookSigningSecrets', OPEN_RIGHT.webhook_signing, ['kms:Decrypt'], context, purpose('webhook_signing')),
    use('SealIntegrationSecrets', SEAL_RIGHT.inbound_auth, ['kms:GenerateDataKey'], context, purpose('inbound_auth')),
    use('SealWebhookSigningSecrets', SEAL_RIGHT.webhook_signing, ['kms:GenerateDataKey'], context, purpose('webhook_signing')),
    use('OpenHelpdeskCredentials', OPEN_RIGHT.helpdesk_credentials, ['kms:Decrypt'], context, purpose('helpdesk_credentials')),
    use('SealHelpdeskCredentials', SEAL_RIGHT.helpdesk_credentials, ['kms:GenerateDataKey'], context, purpose('helpdesk_credentials')),
  );
};

/** The code key: HMAC-SHA-256 for the principals tagged to hash codes. */
export const codeKeyPolicy = (context: KeyPolicyContext): KeyPolicyDocument =>
  policy(administration(context), use('HashCodes', 'hashCodes', ['kms:GenerateMac'], context, { 'kms:MacAlgorithm': 'HMAC_SHA_256' }));

/**
 * Every certificate signing key of the stack, its own and each one `rotate-signing-key` makes:
 * pure Ed25519 for the principals tagged to sign; the public half for anyone of the account.
 */
export const signingKeyPolicy = (context: KeyPolicyContext): KeyPolicyDocument =>
  policy(
    administration(context),
    use('SignCustodyCertificates', 'signCertificates', ['kms:Sign'], context, { 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' }),
    { Sid: 'ReadPublicKey', Effect: 'Allow', Principal: accountOf(context), Action: ['kms:GetPublicKey'], Resource: '*' },
  );

/** Partition and account of a KMS key ARN (`arn:aws:kms:eu-west-2:111122223333:key/...`). */
export const keyPolicyContextOfArn = (keyArn: string, stackName: string): KeyPolicyContext => {
  const match = /^arn:([a-z-]+):kms:[a-z0-9-]+:(\d{12}):key\/.+$/.exec(keyArn);
  if (!match) throw new Error(`not a KMS key ARN: ${keyArn}`);
  return { partition: match[1]!, accountId: match[2]!, stackName };
};
