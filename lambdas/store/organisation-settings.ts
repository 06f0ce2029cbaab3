import type { Policy, Preset, Template } from '#core/model.ts';
import type { AuditEntryInput } from '#core/ports.ts';
import type { OrganisationSettingsStore } from '#core/use-cases/organisation/settings-store.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import { toItem } from './items.ts';
import { keys, type ItemKey } from './keys.ts';
import { joinedWithCondition, policyUnchanged } from './write-conditions.ts';

/**
 * The organisation's settings as the table keeps them: the policy and the default preset are
 * fields of the organisation's item (a client's default preset, of the client's), templates and
 * presets items of their own beside it. Each write goes with its audit entry in one transaction.
 */
export class DynamoOrganisationSettings implements OrganisationSettingsStore {
  constructor(
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async savePolicy(orgId: string, policy: Policy, readVersion: number, audit: AuditEntryInput) {
    await this.audit.append(audit, [this.nextPolicyVersion(orgId, readVersion, { policy })]);
  }

  async putTemplate(template: Template, audit: AuditEntryInput) {
    await this.audit.append(audit, [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.template(template.orgId, template.id), 'template', template),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  }

  async putPreset(preset: Preset, replaces: boolean, policyVersion: number, audit: AuditEntryInput) {
    // Saving under a slug again replaces that preset; a new one must still be new (WriteConflict
    // otherwise), so two first saves of one slug do not both say they made it.
    await this.audit.append(audit, [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.preset(preset.orgId, preset.slug), 'preset', preset),
          ...(replaces ? {} : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
      this.nextPolicyVersion(preset.orgId, policyVersion),
    ]);
  }

  /**
   * The organisation's policy version moved on from the one read (WriteConflict if another write
   * moved it first), with the new policy when one is given. Policy changes and preset saves both
   * move it, so each is judged against the other as it stands.
   */
  private nextPolicyVersion(orgId: string, readVersion: number, change: { policy?: Policy } = {}): TransactItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.organisation(orgId),
        UpdateExpression: change.policy ? 'SET policy = :policy, policyVersion = :next' : 'SET policyVersion = :next',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(policyVersion) OR policyVersion = :read)',
        ExpressionAttributeValues: { ':next': readVersion + 1, ':read': readVersion, ...(change.policy ? { ':policy': change.policy } : {}) },
      },
    };
  }

  async setDefaultPreset(orgId: string, clientId: string | null, slug: string | null, policyVersion: number, audit: AuditEntryInput) {
    // The organisation's rules (its plan among them) still those the choice was judged under.
    const unchanged = policyUnchanged(this.tableName, orgId, policyVersion);
    const write = this.setOn(clientId ? keys.client(orgId, clientId) : keys.organisation(orgId), 'defaultPreset', slug);
    await this.audit.append(audit, clientId ? [write, unchanged] : [joinedWithCondition(write, unchanged)]);
  }

  /** One attribute of an item that must exist (a deleted organisation or client is not brought back). */
  private setOn(key: ItemKey, attribute: string, value: unknown): TransactItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'SET #attribute = :value',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#attribute': attribute },
        ExpressionAttributeValues: { ':value': value },
      },
    };
  }
}
