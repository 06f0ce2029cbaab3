import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#core/clock.ts';
import { sha256Hex } from '#core/hashing.ts';
import { isConditionFailure, type Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { Claim } from './idempotent-commit.ts';
import { newId } from '#core/ids.ts';

/** The response kept for replays: secret fields already nulled by the caller. */
export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyStart =
  /** `claim`: the record and the token that say the claim is this call's (idempotent-commit.ts). */
  | { outcome: 'started'; claim: Claim }
  | { outcome: 'replay'; response: StoredResponse }
  /** `lockedForMs`: how long the claim holds at most, unless the call holding it answers first. */
  | { outcome: 'in_progress'; lockedForMs: number }
  | { outcome: 'mismatch' };

/**
 * Marks a record whose fingerprint takes a missing body as `{}`; one without it was written when a
 * missing body was fingerprinted as `null`, and is kept for 24 hours.
 */
const EMPTY_BODY_AS_OBJECT = 'emptyBodyAsObject';

const RESPONSE_RETENTION_SECONDS = 24 * 60 * 60;
/** A crashed attempt must not answer 409 forever: its claim lapses after this long. */
const IN_PROGRESS_LOCK_MS = 30_000;

/**
 * One record per (API key, Idempotency-Key), modelled on Powertools' idempotency persistence
 * layer: a conditional put claims the key; the stored response is replayed for 24 hours.
 * The Idempotency-Key itself is kept only as a hash.
 */
export class DynamoIdempotency {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  /**
   * `former`: the fingerprint the same call had before a missing body was taken as `{}`; a record
   * written before then (it lacks EMPTY_BODY_AS_OBJECT) that holds it is the same call's.
   */
  async start(apiKeyId: string, idempotencyKey: string, fingerprint: string, former?: string): Promise<IdempotencyStart> {
    const key = keys.idempotency(apiKeyId, sha256Hex(idempotencyKey));
    const nowMs = this.clock.now().getTime();
    const nowSeconds = Math.floor(nowMs / 1000);
    const token = newId(); // not a secret: it only tells this call's claim from a later one
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...key,
            kind: 'idempotency',
            status: 'in_progress',
            fingerprint,
            [EMPTY_BODY_AS_OBJECT]: true,
            claim: token,
            lockedUntil: nowMs + IN_PROGRESS_LOCK_MS,
            [TTL_ATTRIBUTE]: nowSeconds + RESPONSE_RETENTION_SECONDS,
          },
          ConditionExpression:
            'attribute_not_exists(pk) OR #ttl < :nowSeconds OR (#status = :inProgress AND lockedUntil < :nowMs)',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':nowSeconds': nowSeconds, ':nowMs': nowMs, ':inProgress': 'in_progress' },
        }),
      );
      return { outcome: 'started', claim: { key, token } };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    if (!Item) return this.start(apiKeyId, idempotencyKey, fingerprint, former);
    const sameCall = Item.fingerprint === fingerprint || (former !== undefined && Item[EMPTY_BODY_AS_OBJECT] !== true && Item.fingerprint === former);
    if (!sameCall) return { outcome: 'mismatch' };
    if (Item.status === 'in_progress') return { outcome: 'in_progress', lockedForMs: Math.max(0, Number(Item.lockedUntil ?? nowMs) - nowMs) };
    return { outcome: 'replay', response: Item.response as StoredResponse };
  }

  /**
   * Keeps the call's answer for replays, on condition that the claim (what start answered) is still
   * this call's: a call that ran past its lock time has lost the key to a retry, whose answer
   * stands (the retry may have made the change this call could not).
   */
  async finish(claim: Claim, response: StoredResponse) {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: claim.key,
          UpdateExpression: 'SET #status = :done, #response = :response REMOVE lockedUntil',
          ConditionExpression: 'claim = :claim',
          ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
          ExpressionAttributeValues: { ':done': 'done', ':response': response, ':claim': claim.token },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * Releases the claim after a failure that must not be replayed (a 5xx), unless the change
   * committed with its replay meanwhile (idempotent-commit.ts): then the replay stands, and a
   * retry gets the answer this call lost. Only this call's claim: never a retry's that took over.
   */
  async release(claim: Claim) {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: claim.key,
          ConditionExpression: '#status = :inProgress AND claim = :claim',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':inProgress': 'in_progress', ':claim': claim.token },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
