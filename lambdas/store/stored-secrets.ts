import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredWebhookSecret } from '#core/webhooks.ts';
import type { Documents } from './dynamo.ts';

export type StoredItem = Record<string, unknown> & { pk: string; sk: string; kind: string };

/** The request's code hashes after re-hashing; `undefined` leaves one as it is. */
export interface CodeHashes {
  challengeCodeHash?: string | null;
  emailCodeHash?: string | null;
}

/**
 * The table side of `seal-stored-secrets`: finds the items that may hold a secret in an older
 * form (webhook subscriptions, requests) and rewrites them in place, each with one conditional
 * write, so a concurrent change is never overwritten (the write reports it instead, and the item
 * is read and decided again).
 *
 * Like the CLI's organisation list (organisation-list.ts), this Scan is run by an operator with
 * their own credentials; no function may scan.
 */
export class StoredSecrets {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  /** Every webhook subscription and request, page by page. */
  async *candidates(): AsyncGenerator<StoredItem> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: '#kind IN (:webhook, :request)',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':webhook': 'webhook', ':request': 'request' },
          ExclusiveStartKey: start,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) yield item as StoredItem;
      start = page.LastEvaluatedKey;
    } while (start);
  }

  async reread(item: StoredItem): Promise<StoredItem | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }));
    return (Item as StoredItem | undefined) ?? null;
  }

  /** Replaces the signing secrets if they are still those read; false when they changed meanwhile. */
  replaceWebhookSecrets(item: StoredItem, secrets: StoredWebhookSecret[]) {
    return this.conditionally({
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: 'SET secrets = :after',
      ConditionExpression: 'secrets = :before',
      ExpressionAttributeValues: { ':after': secrets, ':before': item.secrets },
    });
  }

  /**
   * Replaces the code hashes if the request is still the version read, and bumps the version: a
   * change decided on the old item (which would write the old hash back) then fails its own
   * version check and is decided again on this one. updatedAt stays: nothing the caller sees changed.
   */
  replaceCodeHashes(item: StoredItem, hashes: CodeHashes) {
    const sets = ['version = :next'];
    const values: Record<string, unknown> = { ':version': item.version, ':next': (item.version as number) + 1 };
    if (hashes.challengeCodeHash !== undefined) {
      sets.push('challengeCodeHash = :challenge');
      values[':challenge'] = hashes.challengeCodeHash;
    }
    if (hashes.emailCodeHash !== undefined) {
      sets.push('verification.emailCodeHash = :email');
      values[':email'] = hashes.emailCodeHash;
    }
    return this.conditionally({
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: values,
    });
  }

  private async conditionally(update: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>) {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, ...update }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
}
