import type { TransactItem } from './audit-log.ts';
import { keys } from './keys.ts';

/**
 * Conditions a change is written under, so that what it was decided on still stands when it
 * commits; a change that commits first refuses it (WriteConflict) and it is decided again.
 *
 * The organisation's policy version counts the changes of the rules its writes are judged under
 * (its policy, its presets, its plan: core/model.ts Organisation.policyVersion).
 */

/** The condition: the organisation's policy version is still `read` (absent counts as 0). */
const policyVersionIs = (read: number) => ({
  ConditionExpression: read === 0 ? 'attribute_not_exists(policyVersion) OR policyVersion = :policyRead' : 'policyVersion = :policyRead',
  ExpressionAttributeValues: { ':policyRead': read },
});

/** The same as a check of the organisation's item in a transaction. */
export const policyUnchanged = (tableName: string, orgId: string, read: number): TransactItem => ({
  ConditionCheck: { TableName: tableName, Key: keys.organisation(orgId), ...policyVersionIs(read) },
});

/**
 * The integration a status came through, or the one its ticket is linked through, is still the
 * version it was read at (not disabled, remapped, rotated or connected to its helpdesk since).
 */
export const integrationUnchanged = (tableName: string, orgId: string, integration: { id: string; version: number }): TransactItem => ({
  ConditionCheck: {
    TableName: tableName,
    Key: keys.integration(orgId, integration.id),
    ConditionExpression: 'version = :version',
    ExpressionAttributeValues: { ':version': integration.version },
  },
});

const KINDS = ['Put', 'Update', 'Delete', 'ConditionCheck'] as const;

/**
 * `write` on `check`'s condition too, both on the same item: a transaction may name an item once,
 * so a check of the item a change writes goes into that write's condition.
 */
export const joinedWithCondition = (write: TransactItem, check: TransactItem): TransactItem => {
  const condition = check.ConditionCheck!;
  const kind = KINDS.find((name) => write[name])!;
  const operation = write[kind]! as NonNullable<TransactItem['Update']>;
  const names = { ...operation.ExpressionAttributeNames, ...condition.ExpressionAttributeNames };
  return {
    [kind]: {
      ...operation,
      ConditionExpression: operation.ConditionExpression ? `(${operation.ConditionExpression}) AND (${condition.ConditionExpression})` : condition.ConditionExpression,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: { ...operation.ExpressionAttributeValues, ...condition.ExpressionAttributeValues },
    },
  } as TransactItem;
};
