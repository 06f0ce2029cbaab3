import type { TransactItem } from './audit-log.ts';
import { keys } from './keys.ts';

/** The integration a status came through is still the version it was read at (not disabled, remapped or rotated since). */
export const integrationUnchanged = (tableName: string, orgId: string, integration: { id: string; version: number }): TransactItem => ({
  ConditionCheck: {
    TableName: tableName,
    Key: keys.integration(orgId, integration.id),
    ConditionExpression: 'version = :version',
    ExpressionAttributeValues: { ':version': integration.version },
  },
});

/**
 * The organisation's policy version is still the one the request was judged under: a policy
 * change or preset save (both move it) that commits first refuses the request (WriteConflict), so
 * no request is made under rules that were already replaced.
 */
export const policyUnchanged = (tableName: string, orgId: string, read: number): TransactItem => ({
  ConditionCheck: {
    TableName: tableName,
    Key: keys.organisation(orgId),
    ConditionExpression: read === 0 ? 'attribute_not_exists(policyVersion) OR policyVersion = :read' : 'policyVersion = :read',
    ExpressionAttributeValues: { ':read': read },
  },
});
