import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKey } from '#core/model.ts';
import type { ApiKeyLookup, ApiKeyUse } from '#core/ports.ts';
import type { Documents } from './dynamo.ts';
import { fromItem } from './items.ts';
import { keys } from './keys.ts';
import { queryAllPages } from './query-prefix.ts';
import { INDEXES } from './table.ts';

/**
 * API keys are found by the SHA-256 of the presented key; the key itself is never stored. What
 * every /v1 call needs (the lookup) and the organisation's list; the writes are DynamoApiKeyStore's
 * (api-key-store.ts), so the API functions do not bundle them.
 */
export class DynamoApiKeys implements ApiKeyLookup, ApiKeyUse {
  constructor(
    protected readonly db: Documents,
    protected readonly tableName: string,
  ) {}

  async findByHash(hash: string) {
    // Strongly consistent: a revoked key must be refused from the very next call (SPEC.md, "at once").
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.apiKey(hash), ConsistentRead: true }),
    );
    return fromItem<ApiKey>(Item);
  }

  async noteUse(hash: string, at: string, staleBefore: string) {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.apiKey(hash),
          UpdateExpression: 'SET lastUsedAt = :at',
          // Never creates an item, and of two calls in the same hour only the first writes.
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :staleBefore)',
          ExpressionAttributeValues: { ':at': at, ':staleBefore': staleBefore },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /**
   * Every key of the organisation, revoked ones included, following the index's pages: one Query
   * answers at most 1 MB, which a few hundred keys with full allowlists fill, and the keys past it
   * (the newest, as the ids sort by time) would be missing from the list.
   */
  async listForOrganisation(orgId: string): Promise<ApiKey[]> {
    const items = await queryAllPages(this.db, {
      TableName: this.tableName,
      IndexName: INDEXES.byOrg.indexName,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.apiKeysOfOrg(orgId) },
    });
    return items.map((item) => fromItem<ApiKey>(item) as ApiKey);
  }
}
