import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#core/clock.ts';
import type { RateLimits } from '#core/model.ts';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

/** Calls counted in the current window, for the key and for its organisation. */
export interface RateCounts {
  key: number;
  org: number;
  resetAt: number;
  nowSeconds: number;
}

const WINDOW_SECONDS = 60;
const THROTTLE_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/**
 * Fixed one-minute windows counted in DynamoDB, per API key and per organisation, with TTL
 * clearing old windows. Counting is an unconditional atomic ADD and the decision is taken on the
 * returned count: that lets the count run in parallel with the organisation read that says what
 * the limits are, saving a round trip on every call. Refused calls count too, so a caller who
 * keeps hammering stays refused until the window ends. If DynamoDB throttles the limiter itself
 * the call goes through (and is reported to `onThrottled`): the limiter protects the service, it
 * must not become its outage.
 */
export class DynamoRateLimiter {
  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly onThrottled: (error: unknown) => void = () => undefined,
  ) {}

  async count(apiKeyId: string, orgId: string): Promise<RateCounts> {
    const { nowSeconds, windowStart, resetAt } = this.window();
    const [key, org] = await Promise.all([
      this.add(keys.rateWindow('key', apiKeyId, windowStart), resetAt),
      this.add(keys.rateWindow('org', orgId, windowStart), resetAt),
    ]);
    return { key, org, resetAt, nowSeconds };
  }

  /** Posts to one integration's inbound URLs in the current window (a limit of its own, per integration). */
  async countIntegration(integrationId: string): Promise<{ count: number; resetAt: number; nowSeconds: number }> {
    const { nowSeconds, windowStart, resetAt } = this.window();
    const count = await this.add(keys.rateWindow('integration', integrationId, windowStart), resetAt);
    return { count, resetAt, nowSeconds };
  }

  /** The current fixed window: when it started and when it ends, in Unix seconds. */
  private window() {
    const nowSeconds = Math.floor(this.clock.now().getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
    return { nowSeconds, windowStart, resetAt: windowStart + WINDOW_SECONDS };
  }

  private async add(key: { pk: string; sk: string }, resetAt: number): Promise<number> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'ADD n :one SET #ttl = :ttl, kind = :kind',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':ttl': resetAt + WINDOW_SECONDS, ':kind': 'rate_window' },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Attributes?.n as number;
    } catch (error) {
      if (THROTTLE_ERRORS.has((error as { name?: string }).name ?? '')) {
        this.onThrottled(error);
        return 0;
      }
      throw error;
    }
  }
}

/** Allowed while both the key's and the organisation's count are within their limits. */
export const decide = (counts: RateCounts, limits: RateLimits): RateDecision => ({
  allowed: counts.key <= limits.perKeyPerMinute && counts.org <= limits.perOrgPerMinute,
  limit: limits.perKeyPerMinute,
  remaining: Math.max(0, Math.min(limits.perKeyPerMinute - counts.key, limits.perOrgPerMinute - counts.org)),
  resetAt: counts.resetAt,
  retryAfterSeconds: Math.max(1, counts.resetAt - counts.nowSeconds),
});
