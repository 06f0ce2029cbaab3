import type { ApiKey } from '#core/model.ts';
import type { ApiKeyStore, AuditEntryInput } from '#core/ports.ts';
import { DynamoApiKeys } from './api-keys.ts';
import type { AuditLog } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { toItem } from './items.ts';
import { keys } from './keys.ts';

/** API keys created and revoked, each with its audit entry in one transaction: the operator CLI's and the member app's (core/use-cases/api-keys.ts). */
export class DynamoApiKeyStore extends DynamoApiKeys implements ApiKeyStore {
  constructor(
    db: Documents,
    tableName: string,
    private readonly audit: AuditLog,
  ) {
    super(db, tableName);
  }

  async create(apiKey: ApiKey, audit: AuditEntryInput) {
    await this.audit.append(audit, [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.apiKey(apiKey.hash), 'api_key', apiKey, { gsi1pk: keys.apiKeysOfOrg(apiKey.orgId), gsi1sk: apiKey.id }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  }

  /** On condition that it is not revoked yet: the audit log throws WriteConflict when it was. */
  async revoke(apiKey: ApiKey, revokedAt: string, audit: AuditEntryInput) {
    await this.audit.append(audit, [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.apiKey(apiKey.hash),
          UpdateExpression: 'SET revokedAt = :at',
          ConditionExpression: 'attribute_exists(pk) AND revokedAt = :null',
          ExpressionAttributeValues: { ':at': revokedAt, ':null': null },
        },
      },
    ]);
  }
}
