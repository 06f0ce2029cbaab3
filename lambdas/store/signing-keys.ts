import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { WriteConflict } from '#core/errors.ts';
import type { SigningKeyRecord, SigningKeyRegistry } from '#core/signing-keys.ts';
import { cancellationCodes, type Documents } from './dynamo.ts';
import { keys } from './keys.ts';

/**
 * The certificate signing keys' registry: one item per public key ever used, and a pointer item
 * naming the current one. Only public keys and references to the private halves are stored.
 */
export class DynamoSigningKeys implements SigningKeyRegistry {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async list(): Promise<SigningKeyRecord[]> {
    const records: SigningKeyRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.signingKeysPartition, ':prefix': keys.signingKeyPrefix },
          // The published keys include one rotated in a moment ago, before any certificate it signs is fetched.
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) records.push(toRecord(item));
      start = page.LastEvaluatedKey;
    } while (start);
    return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  async current(): Promise<SigningKeyRecord | null> {
    const pointer = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.currentSigningKey(), ConsistentRead: true }));
    const kid = pointer.Item?.kid as string | undefined;
    if (!kid) return null;
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.signingKey(kid), ConsistentRead: true }));
    return Item ? toRecord(Item) : null;
  }

  async makeCurrent(record: SigningKeyRecord, previousKid: string | null): Promise<void> {
    const pointer = previousKid
      ? { ConditionExpression: 'kid = :previous', ExpressionAttributeValues: { ':previous': previousKid } }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: { ...keys.currentSigningKey(), kind: 'signing_key_current', kid: record.kid }, ...pointer } },
            { Put: { TableName: this.tableName, Item: { ...keys.signingKey(record.kid), kind: 'signing_key', ...record }, ConditionExpression: 'attribute_not_exists(pk)' } },
            ...(previousKid
              ? [
                  {
                    Update: {
                      TableName: this.tableName,
                      Key: keys.signingKey(previousKid),
                      UpdateExpression: 'SET retiredAt = :at',
                      ConditionExpression: 'attribute_exists(pk)',
                      ExpressionAttributeValues: { ':at': record.createdAt },
                    },
                  },
                ]
              : []),
          ],
        }),
      );
    } catch (error) {
      if (cancellationCodes(error)?.includes('ConditionalCheckFailed')) throw new WriteConflict('the current signing key changed meanwhile', { cause: error });
      throw error;
    }
  }
}

const toRecord = (item: Record<string, unknown>): SigningKeyRecord => ({
  kid: item.kid as string,
  jwk: item.jwk as SigningKeyRecord['jwk'],
  keyRef: item.keyRef as string,
  createdAt: item.createdAt as string,
  retiredAt: (item.retiredAt as string | null | undefined) ?? null,
});
