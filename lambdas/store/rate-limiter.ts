import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#core/clock.ts';
import type { RateLimits } from '#core/model.ts';
import type { Documents } from './dynamo.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { RateLeases } from './rate-leases.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

/** This call's place among the calls of the current window, for the key and for its organisation. */
export interface RateCounts {
  key: number;
  org: number;
  resetAt: number;
  nowSeconds: number;
  /** Told what the decision left of the limit, which sizes the caller's next lease. */
  decided?(remaining: number): void;
}

const WINDOW_SECONDS = 60;
const THROTTLE_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/**
 * Fixed one-minute windows counted in DynamoDB, per API key and per organisation (both in the
 * organisation's window item), with TTL clearing old windows. Counting is an unconditional atomic
 * ADD and the decision is taken on the returned count: that lets the count run in parallel with
 * the organisation read that says what the limits are, saving a round trip on every call. Far
 * from the limits one ADD reserves counts for the instance's next calls too (rate-leases.ts), so
 * most calls write nothing. Refused calls count too, so a caller who keeps hammering stays
 * refused until the window ends. If DynamoDB throttles the limiter itself the call goes through
 * (and is reported to `onThrottled`): the limiter protects the service, it must not become its
 * outage.
 */
export class DynamoRateLimiter {
  private readonly leases = new RateLeases();

  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly onThrottled: (error: unknown) => void = () => undefined,
  ) {}

  async count(apiKeyId: string, orgId: string): Promise<RateCounts> {
    const { nowSeconds, windowStart, resetAt } = this.window();
    const caller = `${orgId}#${apiKeyId}`;
    const decided = (remaining: number) => this.leases.decided(caller, windowStart, remaining);
    const leased = this.leases.take(caller, windowStart);
    if (leased) return { ...leased, resetAt, nowSeconds, decided };
    // One item per organisation and window counts the organisation's calls (`n`) and each key's
    // (`key_<id>`): one write counts both.
    const size = this.leases.sizeFor(caller, windowStart);
    const totals = await this.add(keys.rateWindow('org', orgId, windowStart), resetAt, size, keyCounter(apiKeyId));
    if (!totals) return { key: 0, org: 0, resetAt, nowSeconds };
    const place = this.leases.reserved(caller, windowStart, size, { key: totals.key, org: totals.n });
    return { ...place, resetAt, nowSeconds, decided };
  }

  /** Posts to one integration's inbound URLs in the current window (a limit of its own, per integration). */
  async countIntegration(integrationId: string): Promise<{ count: number; resetAt: number; nowSeconds: number }> {
    const { nowSeconds, windowStart, resetAt } = this.window();
    const count = (await this.add(keys.rateWindow('integration', integrationId, windowStart), resetAt, 1))?.n ?? 0;
    return { count, resetAt, nowSeconds };
  }

  /** The current fixed window: when it started and when it ends, in Unix seconds. */
  private window() {
    const nowSeconds = Math.floor(this.clock.now().getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
    return { nowSeconds, windowStart, resetAt: windowStart + WINDOW_SECONDS };
  }

  /** Adds `amount` to the window's `n` (and to `alsoCounted`, when named); the new totals, or null when throttled. */
  private async add(key: { pk: string; sk: string }, resetAt: number, amount: number, alsoCounted?: string): Promise<{ n: number; key: number } | null> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `ADD n :amount${alsoCounted ? ', #also :amount' : ''} SET #ttl = :ttl, kind = :kind`,
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, ...(alsoCounted ? { '#also': alsoCounted } : {}) },
          ExpressionAttributeValues: { ':amount': amount, ':ttl': resetAt + WINDOW_SECONDS, ':kind': 'rate_window' },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { n: Attributes?.n as number, key: (alsoCounted ? Attributes?.[alsoCounted] : 0) as number };
    } catch (error) {
      if (THROTTLE_ERRORS.has((error as { name?: string }).name ?? '')) {
        this.onThrottled(error);
        return null;
      }
      throw error;
    }
  }
}

/** The attribute of an organisation's window that counts one key's calls. */
export const keyCounter = (apiKeyId: string) => `key_${apiKeyId}`;

/** Allowed while both the key's and the organisation's count are within their limits. */
export const decide = (counts: RateCounts, limits: RateLimits): RateDecision => ({
  allowed: counts.key <= limits.perKeyPerMinute && counts.org <= limits.perOrgPerMinute,
  limit: limits.perKeyPerMinute,
  remaining: Math.max(0, Math.min(limits.perKeyPerMinute - counts.key, limits.perOrgPerMinute - counts.org)),
  resetAt: counts.resetAt,
  retryAfterSeconds: Math.max(1, counts.resetAt - counts.nowSeconds),
});
