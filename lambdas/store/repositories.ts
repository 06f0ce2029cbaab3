import type { Clock } from '#core/clock.ts';
import { AuditLog } from './audit-log.ts';
import { DynamoDirectory } from './directory.ts';
import type { Documents } from './dynamo.ts';
import { DynamoIdempotency } from './idempotency.ts';
import { IdempotentCommits } from './idempotent-commit.ts';
import { DynamoRateLimiter } from './rate-limiter.ts';
import { DynamoRequests } from './requests.ts';
import { DynamoIntegrations } from './integrations.ts';

/**
 * The repositories most functions use, over one table. The API keys, the event feed, the webhook
 * subscriptions and the certificate source are added only by the functions that read them
 * and the one-time shares
 * are added only by the functions that use them (lambdas/store-wiring.ts), so the others do not
 * bundle them.
 */
export const createRepositories = (
  db: Documents,
  tableName: string,
  rateTableName: string,
  clock: Clock,
  onLimiterThrottled: (error: unknown) => void = () => undefined,
) => {
  const commits = new IdempotentCommits(tableName);
  const audit = new AuditLog(db, tableName, clock, undefined, commits);
  return {
    audit,
    commits,
    directory: new DynamoDirectory(db, tableName),
    requests: new DynamoRequests(db, tableName, audit),
    idempotency: new DynamoIdempotency(db, tableName, clock),
    rateLimiter: new DynamoRateLimiter(db, rateTableName, clock, onLimiterThrottled),
    integrations: new DynamoIntegrations(db, tableName, audit),
  };
};
