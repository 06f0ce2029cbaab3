import type { TransactItem } from './audit-log.ts';
import { keys } from './keys.ts';

/**
 * The organisation's policy version counts the changes of the rules its writes are judged under
 * (its policy, its presets, its plan: core/model.ts Organisation.policyVersion). A write decided
 * on those rules holds only while the version is still the one read.
 */

/** The condition: the organisation's policy version is still `read` (absent counts as 0). */
export const policyVersionIs = (read: number) => ({
  ConditionExpression: read === 0 ? 'attribute_not_exists(policyVersion) OR policyVersion = :policyRead' : 'policyVersion = :policyRead',
  ExpressionAttributeValues: { ':policyRead': read },
});

/** The same as a check of the organisation's item in a transaction. */
export const policyUnchangedCheck = (tableName: string, orgId: string, policyVersion: number): TransactItem => ({
  ConditionCheck: { TableName: tableName, Key: keys.organisation(orgId), ...policyVersionIs(policyVersion) },
});
