import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKey } from '#core/model.ts';
import type { ApiKeyLookup } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { fromItem, toItem } from './items.ts';
import { keys } from './keys.ts';
import { INDEXES } from './table.ts';
import type { TransactItem } from './audit-log.ts';

/** API keys are found by the SHA-256 of the presented key; the key itself is never stored. */
export class DynamoApiKeys implements ApiKeyLookup {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async findByHash(hash: string) {
    // Strongly consistent: a revoked key must be refused from the very next call (SPEC.md, "at once").
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.apiKey(hash), ConsistentRead: true }),
    );
    return fromItem<ApiKey>(Item);
  }

  async listForOrganisation(orgId: string): Promise<ApiKey[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: INDEXES.byOrg.indexName,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.apiKeysOfOrg(orgId) },
      }),
    );
    return (Items ?? []).map((item) => fromItem<ApiKey>(item) as ApiKey);
  }

  putWrite(apiKey: ApiKey): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: toItem(keys.apiKey(apiKey.hash), 'api_key', apiKey, {
          gsi1pk: keys.apiKeysOfOrg(apiKey.orgId),
          gsi1sk: apiKey.id,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  revokeWrite(apiKey: ApiKey, revokedAt: string): TransactItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.apiKey(apiKey.hash),
        UpdateExpression: 'SET revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND revokedAt = :null',
        ExpressionAttributeValues: { ':at': revokedAt, ':null': null },
      },
    };
  }
}
