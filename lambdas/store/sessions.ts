import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { MemberAccessStore, MemberSession, SignInTokenRecord } from '#core/member-access.ts';
import { isConditionFailure, type Documents } from './dynamo.ts';
import { fromItem, toItem } from './items.ts';
import { keys, type ItemKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';

/**
 * The sign-in window of one email address: the times of its recent sign-in requests, beside its
 * memberships in the `LOGIN#<email>` partition (which is otherwise `MEMBER#<orgId>#<memberId>` items).
 */
const signInWindow = (email: string): ItemKey => ({ pk: keys.login(email), sk: 'SIGNIN_WINDOW' });
const MEMBERSHIP_PREFIX = 'MEMBER#';
const MAX_WINDOW_RACES = 5;

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * Sign-in tokens and member sessions. Only SHA-256 hashes of tokens are keys here; the tokens
 * themselves (and the CSRF token) are never stored. Items carry `ttlEpoch` so DynamoDB removes them
 * some time after they expire, but expiry is always checked against `expiresAt`, as TTL is lazy.
 */
export class DynamoMemberAccess implements MemberAccessStore {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
  ) {}

  async membershipsOf(email: string) {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.login(email), ':prefix': MEMBERSHIP_PREFIX },
        // A member invited a moment ago can ask for a sign-in link at once.
        ConsistentRead: true,
        Limit: 100,
      }),
    );
    return (Items ?? []).map((item) => ({ orgId: item.orgId as string, memberId: item.memberId as string }));
  }

  /** A sliding window: the item keeps the times of the requests counted within it, written on a version condition. */
  async countSignIn(email: string, now: Date, limit: number, windowMinutes: number) {
    const key = signInWindow(email);
    const windowMs = windowMinutes * 60_000;
    for (let race = 1; race <= MAX_WINDOW_RACES; race++) {
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      const recent = ((Item?.sentAt as number[] | undefined) ?? []).filter((at) => at > now.getTime() - windowMs);
      if (recent.length >= limit) return false;
      const version = (Item?.version as number | undefined) ?? 0;
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...key,
              kind: 'sign_in_window',
              sentAt: [...recent, now.getTime()],
              version: version + 1,
              [TTL_ATTRIBUTE]: Math.floor((now.getTime() + windowMs) / 1000) + 60,
            },
            ConditionExpression: Item ? 'version = :version' : 'attribute_not_exists(pk)',
            ExpressionAttributeValues: Item ? { ':version': version } : undefined,
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    // Heavy contention on one address is itself a reason to send nothing more.
    return false;
  }

  async saveSignInToken(tokenHash: string, record: SignInTokenRecord) {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toItem(keys.signInToken(tokenHash), 'sign_in_token', record, { [TTL_ATTRIBUTE]: epochSeconds(record.expiresAt) }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async peekSignInToken(tokenHash: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.signInToken(tokenHash), ConsistentRead: true }));
    return Item ? fromItem<SignInTokenRecord>(Item) : null;
  }

  /** A conditional delete: of two calls with the same token, exactly one gets the record back. */
  async consumeSignInToken(tokenHash: string) {
    try {
      const { Attributes } = await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.signInToken(tokenHash),
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_OLD',
        }),
      );
      return fromItem<SignInTokenRecord>(Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async saveSession(session: MemberSession) {
    const { tokenHash, ...record } = session;
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toItem(keys.session(tokenHash), 'session', record, { [TTL_ATTRIBUTE]: epochSeconds(session.expiresAt) }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getSession(tokenHash: string): Promise<MemberSession | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.session(tokenHash), ConsistentRead: true }),
    );
    const record = fromItem<Omit<MemberSession, 'tokenHash'>>(Item);
    return record ? { ...record, tokenHash } : null;
  }

  async deleteSession(tokenHash: string) {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.session(tokenHash) }));
  }
}
