import type { IdentityKeyStore } from '#core/member-access.ts';
import type { IdentityKey, Member } from '#core/model.ts';
import type { AuditEntryInput } from '#core/ports.ts';
import type { AuditLog } from './audit-log.ts';
import { keys } from './keys.ts';

/**
 * Identity key changes made from the web application (registration, replacement, approval):
 * the same writes as AdminStore.setIdentityKey / approveIdentityKey, but conditional on the key
 * being what the caller read, so an approval can never land on a key swapped in meanwhile.
 */
export class DynamoIdentityKeys implements IdentityKeyStore {
  constructor(
    private readonly tableName: string,
    private readonly audit: AuditLog,
  ) {}

  async replaceIdentityKey(member: Member, expected: IdentityKey | null, next: IdentityKey, audit: AuditEntryInput) {
    const unchanged = expected
      ? {
          condition: 'identityKey.fingerprint = :fingerprint AND identityKey.#state = :state',
          names: { '#state': 'state' },
          values: { ':fingerprint': expected.fingerprint, ':state': expected.state },
        }
      : {
          condition: 'attribute_exists(pk) AND (attribute_not_exists(identityKey) OR attribute_type(identityKey, :null))',
          names: undefined,
          values: { ':null': 'NULL' },
        };
    await this.audit.append(audit, [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.member(member.orgId, member.id),
          UpdateExpression: 'SET identityKey = :next',
          ConditionExpression: unchanged.condition,
          ExpressionAttributeNames: unchanged.names,
          ExpressionAttributeValues: { ':next': next, ...unchanged.values },
        },
      },
    ]);
  }
}
