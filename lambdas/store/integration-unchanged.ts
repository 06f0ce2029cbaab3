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
