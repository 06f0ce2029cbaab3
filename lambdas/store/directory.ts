import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Integration } from '#core/integration.ts';
import type { Client, Member, Organisation, Preset, Team, Template } from '#core/model.ts';
import type { Directory } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { fromItem } from './items.ts';
import { keys, type ItemKey } from './keys.ts';
import { queryPrefix } from './query-prefix.ts';

/**
 * Reads of an organisation's configuration: the organisation, members, clients, teams, ...
 * Every one strongly consistent: they decide who may act (a member disabled or demoted a moment
 * ago), who receives a credential (a key replaced, a team changed), under which policy, and
 * whether a change is needed at all; an eventually consistent read can be a second old deployed.
 */
export class DynamoDirectory implements Directory {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  getOrganisation(orgId: string) {
    return this.getRecord<Organisation>(keys.organisation(orgId));
  }

  async listMembers(orgId: string): Promise<Member[]> {
    return this.queryPrefix<Member>(keys.organisation(orgId).pk, keys.memberPrefix);
  }

  listClients(orgId: string) {
    return this.queryPrefix<Client>(keys.organisation(orgId).pk, keys.clientPrefix);
  }

  listTeams(orgId: string) {
    return this.queryPrefix<Team>(keys.organisation(orgId).pk, keys.teamPrefix);
  }

  listTemplates(orgId: string) {
    return this.queryPrefix<Template>(keys.organisation(orgId).pk, keys.templatePrefix);
  }

  listPresets(orgId: string) {
    return this.queryPrefix<Preset>(keys.organisation(orgId).pk, keys.presetPrefix);
  }

  getMember(orgId: string, memberId: string) {
    return this.getRecord<Member>(keys.member(orgId, memberId));
  }

  getClient(orgId: string, clientId: string) {
    return this.getRecord<Client>(keys.client(orgId, clientId));
  }

  getTeam(orgId: string, teamId: string) {
    return this.getRecord<Team>(keys.team(orgId, teamId));
  }

  getTemplate(orgId: string, templateId: string) {
    return this.getRecord<Template>(keys.template(orgId, templateId));
  }

  getPreset(orgId: string, slug: string) {
    return this.getRecord<Preset>(keys.preset(orgId, slug));
  }

  getIntegration(orgId: string, integrationId: string) {
    return this.getRecord<Integration>(keys.integration(orgId, integrationId));
  }

  private async getRecord<T>(key: ItemKey): Promise<T | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return fromItem<T>(Item);
  }

  private async queryPrefix<T>(pk: string, prefix: string): Promise<T[]> {
    return (await queryPrefix(this.db, this.tableName, pk, prefix, { consistent: true })).map((item) => fromItem<T>(item) as T);
  }
}
