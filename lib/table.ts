import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { indexList, TABLE_KEYS, TTL_ATTRIBUTE } from '../lambdas/store/table.ts';

/**
 * The single table. Key schema, TTL attribute and indexes come from lambdas/store/table.ts, the
 * same definitions the local bootstrap uses, so the deployed and the local table cannot disagree.
 *
 * - Streams with NEW_IMAGE feed the webhook fan-out from the audit items.
 * - Point-in-time recovery, deletion protection and RETAIN: the table holds the audit chain and
 *   stored (encrypted) credentials; neither a stack deletion nor a replacement may drop it.
 * - No fixed table name, so the stack can be deployed more than once per account and region.
 */
export class HandoffTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    for (const index of indexList()) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
  }
}
