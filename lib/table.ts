import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { TableAccess } from '../lambdas/access/table-access-types.ts';
import { indexList, STREAM_VIEW_TYPE, TABLE_KEYS, TTL_ATTRIBUTE } from '../lambdas/store/table.ts';
import { grantTableAccess, type TableAccessGranter } from './table-access.ts';
import { tableKeyPolicy } from '../lambdas/access/key-policies.ts';
import { keyPolicyContext, keyPolicyDocument } from './key-rights.ts';
import { DEFAULT_POINT_IN_TIME_RECOVERY_DAYS, recoveryEnvironment } from './point-in-time-recovery.ts';

/**
 * The single table. Key schema, TTL attribute and indexes come from lambdas/store/table.ts, the
 * same definitions the local bootstrap uses, so the deployed and the local table cannot disagree.
 *
 * - A stream of keys only (STREAM_VIEW_TYPE) feeds the webhook fan-out, which reads the audit
 *   entries it names: no item's content, a credential's envelope least of all, is copied there.
 * - Point-in-time recovery, deletion protection and RETAIN: the table holds the audit chain and
 *   stored (encrypted) credentials; neither a stack deletion nor a replacement may drop it. The
 *   recovery period is a setting (lib/point-in-time-recovery.ts): for that long a destroyed
 *   credential's ciphertext stays restorable from the backups, and every certificate says so.
 * - No fixed table name, so the stack can be deployed more than once per account and region.
 * - Encrypted (with its stream, indexes and backups) under a customer-managed key of its own,
 *   rotated yearly and retained with the table: who may use the table's data is then also who
 *   may use the key through DynamoDB, each function by its declaration (grantAccess), and key
 *   use shows in CloudTrail.
 */
export class HandoffTable extends Construct implements TableAccessGranter {
  readonly table: dynamodb.Table;
  /** The rate windows' table (lambdas/store/table.ts): the same key schema and TTL, no stream, index or recovery; under the same key. */
  readonly rateTable: dynamodb.Table;
  readonly key: kms.Key;
  /** The point-in-time recovery period, and the setting that tells the certificate functions. */
  readonly backups: { readonly pointInTimeRecoveryDays: number; readonly environment: Readonly<Record<string, string>> };

  constructor(scope: Construct, id: string, props: { pointInTimeRecoveryDays?: number } = {}) {
    super(scope, id);
    const pointInTimeRecoveryDays = props.pointInTimeRecoveryDays ?? DEFAULT_POINT_IN_TIME_RECOVERY_DAYS;
    this.backups = { pointInTimeRecoveryDays, environment: recoveryEnvironment(pointInTimeRecoveryDays) };

    this.key = new kms.Key(this, 'Key', {
      description: 'Credential Handoff Service: encrypts the table, its indexes and its stream',
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      // The table is retained; without its key its data (backups included) could never be read again.
      removalPolicy: RemovalPolicy.RETAIN,
      // Used only through DynamoDB, by the roles grantAccess tags (lambdas/access/key-policies.ts).
      policy: keyPolicyDocument(tableKeyPolicy({ ...keyPolicyContext(this), dynamoDbService: `dynamodb.${Stack.of(this).region}.${Stack.of(this).urlSuffix}` })),
    });

    // Both tables: the shared key schema and TTL, on demand, under the key.
    const sharedProps = {
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.key,
      partitionKey: { name: TABLE_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
    };
    this.table = new dynamodb.Table(this, 'Table', {
      ...sharedProps,
      stream: dynamodb.StreamViewType[STREAM_VIEW_TYPE],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: pointInTimeRecoveryDays },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Counters of the current and the last minute: nothing to recover, so it may go with the stack.
    this.rateTable = new dynamodb.Table(this, 'RateTable', { ...sharedProps, removalPolicy: RemovalPolicy.DESTROY });

    for (const index of indexList()) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
  }

  /** Exactly the table, index, stream and key rights of one function's declaration (lambdas/access/table-access.ts). */
  grantAccess(fn: lambda.IFunction, access: TableAccess) {
    grantTableAccess(fn, { table: this.table, rateTable: this.rateTable }, this.key, access);
  }
}
