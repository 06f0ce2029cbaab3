import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isApiKeyDisplayPrefix } from '#core/api-key-format.ts';
import { isId } from '#core/ids.ts';
import type { ApiKey } from '#core/model.ts';
import type { ApiKeyStore, AuditEntryInput } from '#core/ports.ts';
import { DynamoApiKeys } from './api-keys.ts';
import type { AuditLog } from './audit-log.ts';
import type { Documents } from './dynamo.ts';
import { toItem } from './items.ts';
import { keys } from './keys.ts';

/** A key's pointer item: which key, and its hash (the key item's own key). Never shown: only revocation reads it. */
interface ApiKeyRef {
  orgId: string;
  keyId: string;
  hash: string;
}

/** API keys created and revoked, each with its audit entry in one transaction: the operator CLI's and the member app's (core/use-cases/api-keys.ts). */
export class DynamoApiKeyStore extends DynamoApiKeys implements ApiKeyStore {
  constructor(
    db: Documents,
    tableName: string,
    private readonly audit: AuditLog,
  ) {
    super(db, tableName);
  }

  /** The key with its pointers by id and by display prefix, in one transaction: a revocation can find it at once. */
  async create(apiKey: ApiKey, audit: AuditEntryInput) {
    const ref: ApiKeyRef = { orgId: apiKey.orgId, keyId: apiKey.id, hash: apiKey.hash };
    await this.audit.append(audit, [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(keys.apiKey(apiKey.hash), 'api_key', apiKey, { gsi1pk: keys.apiKeysOfOrg(apiKey.orgId), gsi1sk: apiKey.id }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { TableName: this.tableName, Item: toItem(keys.apiKeyIdRef(apiKey.orgId, apiKey.id), 'api_key_ref', ref) } },
      { Put: { TableName: this.tableName, Item: toItem(keys.apiKeyPrefixRef(apiKey.orgId, apiKey.prefix, apiKey.id), 'api_key_ref', ref) } },
    ]);
  }

  /**
   * Strongly consistent reads of the pointers: by id, or by display prefix (the oldest key of it,
   * as the organisation's list in id order would find it). Anything shaped as neither names no key.
   */
  async hashOfKey(orgId: string, idOrPrefix: string): Promise<string | null> {
    if (isId(idOrPrefix)) {
      const { Item } = await this.db.send(
        new GetCommand({ TableName: this.tableName, Key: keys.apiKeyIdRef(orgId, idOrPrefix), ConsistentRead: true }),
      );
      return (Item as ApiKeyRef | undefined)?.hash ?? null;
    }
    if (!isApiKeyDisplayPrefix(idOrPrefix)) return null;
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.apiKeyRefsOfOrg(orgId), ':prefix': keys.apiKeyPrefixRefPrefix(idOrPrefix) },
        ConsistentRead: true,
        Limit: 1,
      }),
    );
    return (Items?.[0] as ApiKeyRef | undefined)?.hash ?? null;
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
