import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Organisation } from '#core/model.ts';
import type { Documents } from './dynamo.ts';

/** One organisation as the operator's list shows it, with its members counted. */
export interface OrganisationSummary {
  organisation: Pick<Organisation, 'id' | 'name' | 'plan' | 'createdAt'>;
  members: number;
  activeMembers: number;
  /** Zero: nobody can sign in to manage the organisation (the operator's recover-org restores one). */
  activeOwners: number;
}

/**
 * Every organisation in the table, by name, for the operator CLI's `list-orgs`. An organisation is
 * the head item of its own partition and no index lists them, so this is a Scan; the member items
 * are counted in the same pass rather than with a query per organisation. Only the operator runs
 * it, with their own credentials: no function may Scan.
 * Only the fields shown are read back, so no identity key or other member detail leaves the table.
 */
export const listOrganisations = async (db: Documents, tableName: string): Promise<OrganisationSummary[]> => {
  const organisations = new Map<string, OrganisationSummary['organisation']>();
  const members = new Map<string, { all: number; active: number; activeOwners: number }>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#kind IN (:organisation, :member)',
        ProjectionExpression: '#kind, #id, #orgId, #name, #plan, #createdAt, #role, #active',
        ExpressionAttributeNames: {
          '#kind': 'kind',
          '#id': 'id',
          '#orgId': 'orgId',
          '#name': 'name',
          '#plan': 'plan',
          '#createdAt': 'createdAt',
          '#role': 'role',
          '#active': 'active',
        },
        ExpressionAttributeValues: { ':organisation': 'organisation', ':member': 'member' },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.kind === 'organisation') {
        organisations.set(item.id as string, { id: item.id as string, name: item.name as string, plan: item.plan as Organisation['plan'], createdAt: item.createdAt as string });
        continue;
      }
      const counted = members.get(item.orgId as string) ?? { all: 0, active: 0, activeOwners: 0 };
      counted.all += 1;
      if (item.active) counted.active += 1;
      if (item.active && item.role === 'owner') counted.activeOwners += 1;
      members.set(item.orgId as string, counted);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return [...organisations.values()]
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
    .map((organisation) => {
      const counted = members.get(organisation.id);
      return { organisation, members: counted?.all ?? 0, activeMembers: counted?.active ?? 0, activeOwners: counted?.activeOwners ?? 0 };
    });
};
