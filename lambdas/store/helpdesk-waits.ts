import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { HelpdeskWaits } from '#core/helpdesk-waits.ts';
import { isConditionFailure, type Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';

/** One item per integration beside its activity (`INTEGRATION#<id>`, `HELPDESK_WAIT`), gone a day after its time. */
export class DynamoHelpdeskWaits implements HelpdeskWaits {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async until(integrationId: string, now: Date) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.helpdeskWait(integrationId), ConsistentRead: true }));
    const until = Item?.until as string | undefined;
    return until && Date.parse(until) > now.getTime() ? until : null;
  }

  async hold(integrationId: string, until: string) {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.helpdeskWait(integrationId), kind: 'helpdesk_wait', until, [TTL_ATTRIBUTE]: Math.floor(Date.parse(until) / 1000) + 86_400 },
          ConditionExpression: 'attribute_not_exists(#until) OR #until < :until',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':until': until },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
