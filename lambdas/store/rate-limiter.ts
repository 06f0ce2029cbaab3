import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#core/clock.ts';
import { setNewest } from '#core/bounded-map.ts';
import type { RateLimits } from '#core/model.ts';
import { DEFAULT_RATE_LIMITS } from '#core/policy.ts';
import { isConditionFailure, type Documents } from './dynamo.ts';
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

/** A call's count, started before the organisation's limits are read and judged once they are. */
export interface RateCount {
  judge(limits: RateLimits): Promise<RateDecision>;
  /** The call turned out not to be the key's (revoked, expired, unknown): its count is given back. */
  release(): Promise<void>;
}

/** What one conditional count came back with. */
type Counted =
  /** Admitted: the key's and the organisation's totals of the window, this call included. */
  | { admitted: true; key: number; org: number }
  /** A window was full: nothing was counted. */
  | { admitted: false }
  /** DynamoDB throttled the limiter: the call goes through uncounted. */
  | null;

interface Window {
  nowSeconds: number;
  windowStart: number;
  resetAt: number;
}

const WINDOW_SECONDS = 60;
const THROTTLE_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);
/** Organisations whose limits one instance remembers; the oldest go first. */
const REMEMBERED_ORGANISATIONS = 1000;

/**
 * Fixed one-minute windows counted in DynamoDB, per API key and per organisation, with TTL
 * clearing old windows. One item per organisation and window holds both counts (`n` for the
 * organisation, `key_<id>` for each key), and a call is admitted by one conditional ADD that
 * counts it on both only while both are below their limits. A window therefore admits exactly its
 * limits whatever the concurrency and however many function instances serve the caller: the table
 * decides every call, no instance holds counts, and a refused call counts on neither (so a key
 * refused at its own limit does not use up the organisation's allowance for its other keys).
 *
 * The condition needs the limits, which live on the organisation the call reads anyway. To keep
 * the count beside that read rather than after it, the count is made with the limits this
 * instance last saw for the organisation (the defaults for one it has not seen) and judged again
 * once the read answers: with the same limits (all but the first call after a change) the
 * answer stands; if they changed, a call admitted past the new limits gives its count back and
 * is refused, and a call refused under the old ones is counted again under the new.
 *
 * If DynamoDB throttles the limiter itself the call goes through (and is reported to
 * `onThrottled`): the limiter protects the service, it must not become its outage.
 */
export class DynamoRateLimiter {
  private readonly limitsSeen = new Map<string, RateLimits>();

  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly onThrottled: (error: unknown) => void = () => undefined,
  ) {}

  count(apiKeyId: string, orgId: string): RateCount {
    const window = this.window();
    const assumed = this.limitsSeen.get(orgId) ?? DEFAULT_RATE_LIMITS;
    const first = this.admit(orgId, apiKeyId, window, assumed);
    first.catch(() => undefined); // judged (and a failure raised) later, or never when the key is refused
    return {
      judge: async (limits) => {
        this.remember(orgId, limits);
        let counted = await first;
        if (!sameLimits(assumed, limits)) counted = await this.recount(orgId, apiKeyId, window, counted, limits);
        return decision(counted, limits, window);
      },
      release: async () => {
        if ((await first)?.admitted) await this.giveBack(orgId, apiKeyId, window);
      },
    };
  }

  /** Posts to one integration's inbound URLs in the current window (a limit of its own, per integration). */
  async countIntegration(integrationId: string): Promise<{ count: number; resetAt: number; nowSeconds: number }> {
    const { nowSeconds, windowStart, resetAt } = this.window();
    // One counter, so counting every post (refused ones too) still admits exactly the limit.
    const count = await this.throttleSafe(async () => {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.rateWindow('integration', integrationId, windowStart),
          UpdateExpression: 'ADD n :one SET #ttl = :ttl, kind = :kind',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':ttl': resetAt + WINDOW_SECONDS, ':kind': 'rate_window' },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Attributes?.n as number;
    });
    return { count: count ?? 0, resetAt, nowSeconds };
  }

  /** The first count was made with limits that are no longer the organisation's: made right. */
  private async recount(orgId: string, apiKeyId: string, window: Window, counted: Counted, limits: RateLimits): Promise<Counted> {
    if (counted === null) return null;
    if (!counted.admitted) return this.admit(orgId, apiKeyId, window, limits);
    if (counted.key <= limits.perKeyPerMinute && counted.org <= limits.perOrgPerMinute) return counted;
    await this.giveBack(orgId, apiKeyId, window);
    return { admitted: false };
  }

  /** Counts the call on the key and the organisation if both are below `limits`. */
  private admit(orgId: string, apiKeyId: string, window: Window, limits: RateLimits): Promise<Counted> {
    return this.throttleSafe(async () => {
      try {
        const { Attributes } = await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.rateWindow('org', orgId, window.windowStart),
            UpdateExpression: 'ADD n :one, #key :one SET #ttl = :ttl, kind = :kind',
            ConditionExpression: '(attribute_not_exists(n) OR n < :orgLimit) AND (attribute_not_exists(#key) OR #key < :keyLimit)',
            ExpressionAttributeNames: { '#key': keyCounter(apiKeyId), '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: {
              ':one': 1,
              ':orgLimit': limits.perOrgPerMinute,
              ':keyLimit': limits.perKeyPerMinute,
              ':ttl': window.resetAt + WINDOW_SECONDS,
              ':kind': 'rate_window',
            },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return { admitted: true, key: Attributes?.[keyCounter(apiKeyId)] as number, org: Attributes?.n as number };
      } catch (error) {
        if (isConditionFailure(error)) return { admitted: false };
        throw error;
      }
    });
  }

  /** Takes back a count made under limits since lowered, or for a call that was not the key's. */
  private async giveBack(orgId: string, apiKeyId: string, window: Window) {
    await this.throttleSafe(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.rateWindow('org', orgId, window.windowStart),
          UpdateExpression: 'ADD n :minusOne, #key :minusOne',
          ExpressionAttributeNames: { '#key': keyCounter(apiKeyId) },
          ExpressionAttributeValues: { ':minusOne': -1 },
        }),
      ),
    );
  }

  private remember(orgId: string, limits: RateLimits) {
    const known = this.limitsSeen.get(orgId);
    if (known && sameLimits(known, limits)) return;
    setNewest(this.limitsSeen, orgId, { perKeyPerMinute: limits.perKeyPerMinute, perOrgPerMinute: limits.perOrgPerMinute }, REMEMBERED_ORGANISATIONS);
  }

  /** The current fixed window: when it started and when it ends, in Unix seconds. */
  private window(): Window {
    const nowSeconds = Math.floor(this.clock.now().getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
    return { nowSeconds, windowStart, resetAt: windowStart + WINDOW_SECONDS };
  }

  /** The call's result, or null when DynamoDB throttled it. */
  private async throttleSafe<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
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

const sameLimits = (a: RateLimits, b: RateLimits) => a.perKeyPerMinute === b.perKeyPerMinute && a.perOrgPerMinute === b.perOrgPerMinute;

/** Admitted calls see what is left of the tighter limit; a refused call, nothing. */
const decision = (counted: Counted, limits: RateLimits, window: Window): RateDecision => {
  const { perKeyPerMinute, perOrgPerMinute } = limits;
  const used = counted?.admitted ? counted : { key: 0, org: 0 };
  return {
    allowed: counted === null || counted.admitted,
    limit: perKeyPerMinute,
    remaining: counted && !counted.admitted ? 0 : Math.max(0, Math.min(perKeyPerMinute - used.key, perOrgPerMinute - used.org)),
    resetAt: window.resetAt,
    retryAfterSeconds: Math.max(1, window.resetAt - window.nowSeconds),
  };
};
