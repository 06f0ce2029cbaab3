import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { OrganisationChanges, TeamChange } from '#core/use-cases/organisation/acting.ts';
import type { Client, Member, Team } from '#core/model.ts';
import type { AuditEntryInput } from '#core/ports.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { toItem } from './items.ts';
import { keys } from './keys.ts';
import { setFieldsOf } from './set-fields.ts';

/**
 * The writes of the organisation use cases (core/use-cases/organisation/): each change one
 * transaction with its audit entry, its conditions in the same transaction.
 */
export class DynamoOrganisationChanges implements OrganisationChanges {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async memberIdByEmail(orgId: string, email: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.memberEmail(orgId, email), ConsistentRead: true }));
    return (Item?.memberId as string | undefined) ?? null;
  }

  async addMember(member: Member, audit: AuditEntryInput) {
    await this.audit.append(audit, newMemberWrites(this.tableName, member));
  }

  async updateMember(member: Member, next: Pick<Member, 'role' | 'active' | 'sessionsValidFrom'>, audit: AuditEntryInput, keptOwner: Member | null) {
    await this.audit.append(audit, [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.member(member.orgId, member.id),
          UpdateExpression: `SET #role = :role, active = :active${next.sessionsValidFrom ? ', sessionsValidFrom = :validFrom' : ''}`,
          ConditionExpression: '#role = :wasRole AND active = :wasActive',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: {
            ':role': next.role,
            ':active': next.active,
            ':wasRole': member.role,
            ':wasActive': member.active,
            ...(next.sessionsValidFrom ? { ':validFrom': next.sessionsValidFrom } : {}),
          },
        },
      },
      ...(keptOwner ? [keptOwner] : []).map(
        (owner): TransactItem => ({
          ConditionCheck: {
            TableName: this.tableName,
            Key: keys.member(owner.orgId, owner.id),
            ConditionExpression: '#role = :owner AND active = :true',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':owner': 'owner', ':true': true },
          },
        }),
      ),
    ]);
  }

  async putClient(client: Client, audit: AuditEntryInput) {
    await this.audit.append(audit, [newItem(this.tableName, toItem(keys.client(client.orgId, client.id), 'client', client))]);
  }

  async renameClient(client: Client, name: string, audit: AuditEntryInput) {
    await this.audit.append(audit, [setFieldsOf(this.tableName, keys.client(client.orgId, client.id), { name })]);
  }

  async putTeam(team: Team, audit: AuditEntryInput) {
    await this.audit.append(audit, [newItem(this.tableName, toItem(keys.team(team.orgId, team.id), 'team', team)), ...this.membersExist(team.orgId, team.memberIds)]);
  }

  async changeTeam(team: Team, change: TeamChange, audits: AuditEntryInput[]) {
    await this.audit.append(audits, [
      // On condition of the name and members the change was decided on (the use case reads again and retries).
      setFieldsOf(this.tableName, keys.team(team.orgId, team.id), change, { name: team.name, memberIds: team.memberIds }),
      ...(change.memberIds ? this.membersExist(team.orgId, change.memberIds) : []),
    ]);
  }

  private membersExist(orgId: string, memberIds: string[]): TransactItem[] {
    return memberIds.map((id) => ({ ConditionCheck: { TableName: this.tableName, Key: keys.member(orgId, id), ConditionExpression: 'attribute_exists(pk)' } }));
  }
}

const newItem = (tableName: string, item: object): TransactItem => ({
  Put: { TableName: tableName, Item: item as Record<string, unknown>, ConditionExpression: 'attribute_not_exists(pk)' },
});

/** A new member's item and its index items, each on condition that it is new. */
export const newMemberWrites = (tableName: string, member: Member): TransactItem[] => [
  newItem(tableName, toItem(keys.member(member.orgId, member.id), 'member', member)),
  // One member per email within an organisation.
  newItem(tableName, toItem(keys.memberEmail(member.orgId, member.email), 'member_email', { memberId: member.id })),
  // Sign-in finds a person's memberships across organisations by email (store/sessions.ts).
  newItem(tableName, toItem(keys.loginMembership(member.email, member.orgId, member.id), 'login_membership', { orgId: member.orgId, memberId: member.id })),
];
