import { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  itemActionsOf,
  keyPattern,
  STREAM_ACTIONS,
  touchesTable,
  writesTable,
  type IndexName,
  type IndexPartition,
  type TableAccess,
} from '../lambdas/access/table-access-types.ts';
import { INDEXES, RATE_PARTITION_PREFIX } from '../lambdas/store/table.ts';
import { tagKeyRight } from './key-rights.ts';

/** The main table and the rate windows' table (lambdas/store/table.ts). */
export interface HandoffTables {
  table: dynamodb.ITable;
  rateTable: dynamodb.ITable;
}

/** Gives a function exactly the table access its declaration (lambdas/access/table-access.ts) names. */
export interface TableAccessGranter {
  grantAccess(fn: lambda.IFunction, access: TableAccess): void;
}

/**
 * The IAM statements for one function's declaration; none at all for a function that touches no
 * table.
 *
 * - Item actions on the table ARN (on the rate table's for the rate windows' `RATE#` partitions), with `ForAllValues:StringLike` on `dynamodb:LeadingKeys` over
 *   the partition-key prefixes declared for them (`ORG#*`, `REQ#*`, ...), one statement per set
 *   of actions that share their prefixes. DynamoDB authorises each item of
 *   a TransactWriteItems as its own PutItem, UpdateItem, DeleteItem or ConditionCheckItem
 *   (TransactGetItems as GetItem), each with that item's partition key as its leading key, and a
 *   BatchGetItem or BatchWriteItem with every key of the batch: one statement covers them all. A
 *   Query of the table names its partition key, which the same condition checks.
 * - `dynamodb:Query` on exactly the declared index ARNs. A query has only the partition key of
 *   its key condition to offer as a leading key before anything is read, and on a global
 *   secondary index that is the index's own partition key (`ORG#<id>#REQS`, `DUE#<shard>`,
 *   `DELIVERY_DUE#<shard>`), never the table's `pk` of the items it returns; so the index
 *   statement's condition lists the index partitions' patterns. Were the key absent from an index
 *   query's context instead, `ForAllValues` over an empty set is true and the query is still
 *   allowed (on the named indexes only): either way a deployed function's real queries pass,
 *   which the local guard proves for the declared patterns.
 * - The four stream actions on the stream ARN, for the fan-out's event source mapping, which reads
 *   the stream with the function's role.
 * - The table's customer-managed key, only through DynamoDB (`kms:ViaService`): DynamoDB uses it
 *   on behalf of the caller to open the table key. Decrypt for every function that reads (the
 *   stream included); Encrypt and GenerateDataKey too for a function that writes. Nothing else:
 *   no function may use the key directly, and the key policy allows these uses only to roles
 *   tagged for them (grantTableAccess tags each role as its statement reads or writes).
 */
export const tableAccessStatements = (tables: HandoffTables, key: kms.IKey, access: TableAccess, scope: Stack): iam.PolicyStatement[] => {
  if (!touchesTable(access)) return [];
  const { table, rateTable } = tables;
  const statements: iam.PolicyStatement[] = [];
  // Actions allowed on the same partitions share one statement; rate windows are in the rate table.
  const itemsIn = (inRateTable: boolean) =>
    itemActionsOf(access)
      .map((action) => [action, access.items[action]!.filter((partition) => partition.startsWith(RATE_PARTITION_PREFIX) === inRateTable)] as const)
      .filter(([, partitions]) => partitions.length > 0);
  const itemStatements = (sid: string, tableArn: string, inRateTable: boolean) =>
    groupedByPartitions(itemsIn(inRateTable)).forEach((group, n) =>
      statements.push(
        new iam.PolicyStatement({
          sid: `${sid}${n === 0 ? '' : n + 1}`,
          actions: group.names.map((action) => `dynamodb:${action}`),
          resources: [tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': group.partitions.map(keyPattern) } },
        }),
      ),
    );
  itemStatements('TableItems', table.tableArn, false);
  itemStatements('RateTableItems', rateTable.tableArn, true);
  // Indexes queried under the same partitions share one statement.
  groupedByPartitions(Object.entries(access.indexes ?? {}) as Array<[IndexName, readonly IndexPartition[]]>).forEach((group, n) =>
    statements.push(
      new iam.PolicyStatement({
        sid: `TableIndexQuery${n === 0 ? '' : n + 1}`,
        actions: ['dynamodb:Query'],
        resources: group.names.map((index) => `${table.tableArn}/index/${INDEXES[index].indexName}`),
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': group.partitions.map(keyPattern) } },
      }),
    ),
  );
  if (access.stream) {
    if (!table.tableStreamArn) throw new Error('the table has no stream, but a function declares it reads one');
    statements.push(new iam.PolicyStatement({ sid: 'TableStream', actions: STREAM_ACTIONS.map((action) => `dynamodb:${action}`), resources: [table.tableStreamArn] }));
  }
  statements.push(
    new iam.PolicyStatement({
      sid: 'TableKeyThroughDynamoDB',
      actions: writesTable(access) ? ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'],
      resources: [key.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${scope.region}.${scope.urlSuffix}` } },
    }),
  );
  return statements;
};

/** Names (actions or indexes) with the same partition list together, in first-seen order. */
const groupedByPartitions = <Name extends string>(entries: ReadonlyArray<readonly [Name, readonly string[]]>) => {
  const groups = new Map<string, { names: Name[]; partitions: readonly string[] }>();
  for (const [name, partitions] of entries) {
    const sorted = [...partitions].sort();
    const group = groups.get(sorted.join(' ')) ?? { names: [], partitions: sorted };
    group.names.push(name);
    groups.set(sorted.join(' '), group);
  }
  return [...groups.values()];
};

/**
 * Adds the statements of `access` to the function's role, and tags the role for the table key's
 * policy (lambdas/access/key-policies.ts) with the same right its key statement has: reading, or
 * reading and writing. A function that touches no table gets neither.
 */
export const grantTableAccess = (fn: lambda.IFunction, tables: HandoffTables, key: kms.IKey, access: TableAccess) => {
  for (const statement of tableAccessStatements(tables, key, access, Stack.of(fn))) fn.addToRolePolicy(statement);
  if (touchesTable(access)) tagKeyRight(fn, writesTable(access) ? 'writeTable' : 'readTable', key);
};
