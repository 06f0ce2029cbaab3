import type { Logger } from '@aws-lambda-powertools/logger';
import { systemClock, type Clock } from '#core/clock.ts';
import type { ExpiryScheduler, Notifier } from '#core/ports.ts';
import type { PublicUrls } from '#core/request-view.ts';
import { createDocumentClient, type Documents } from '#store/dynamo.ts';
import { createRepositories } from '#store/repositories.ts';
import { EventBridgeExpiryScheduler } from '#adapters/eventbridge-scheduler.ts';
import { AwsNotifier } from '#adapters/ses-sns-notifier.ts';
import type { AppDeps } from './app-deps.ts';
import { createLogger } from './logger.ts';

export interface WiringOptions {
  tableName: string;
  urls: PublicUrls;
  notifier: Notifier;
  /** Default: none (requests then expire through the sweep alone). */
  scheduler?: ExpiryScheduler;
  db?: Documents;
  clock?: Clock;
  logger?: Logger;
  /** Local and test use only: let webhook subscriptions name a loopback receiver. Default false. */
  allowLoopbackWebhooks?: boolean;
}

/** Builds the dependencies; the local runtime and tests call this with their own stand-ins. */
export const createAppDeps = (options: WiringOptions): AppDeps => {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger();
  const db = options.db ?? createDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const repositories = createRepositories(db, options.tableName, clock, (error) =>
    logger.warn('rate limiter throttled; letting the call through', { errorName: (error as Error).name }),
  );
  const scheduler = reportingFailures(options.scheduler ?? NO_SCHEDULER, logger);
  const webhookPolicy = { allowLoopback: options.allowLoopbackWebhooks ?? false };
  return { clock, logger, db, tableName: options.tableName, urls: options.urls, notifier: options.notifier, scheduler, webhookPolicy, ...repositories };
};

/** Arms nothing; the sweep still expires every due request. */
export const NO_SCHEDULER: ExpiryScheduler = { schedule: async () => undefined, cancel: async () => undefined };

/**
 * Logs a failed schedule or cancel (ids and the error's name only) and passes the error on; the
 * use cases tolerate it, as the sweep covers a missing schedule.
 */
const reportingFailures = (inner: ExpiryScheduler, logger: Logger): ExpiryScheduler => {
  const reported = async (operation: 'schedule' | 'cancel', requestId: string, call: () => Promise<void>) => {
    try {
      await call();
    } catch (error) {
      logger.warn('expiry schedule failed; the sweep will cover it', { operation, requestId, errorName: (error as Error)?.name });
      throw error;
    }
  };
  return {
    schedule: (requestId, atIso) => reported('schedule', requestId, () => inner.schedule(requestId, atIso)),
    cancel: (requestId) => reported('cancel', requestId, () => inner.cancel(requestId)),
  };
};

/**
 * EventBridge Scheduler, configured from SCHEDULE_GROUP, EXPIRY_FUNCTION_ARN and SCHEDULER_ROLE_ARN.
 * Built on first use: only the functions that arm or cancel expiries have those variables (and
 * the rights), and a function without them fails only the (tolerated) scheduling call.
 */
const eventBridgeScheduler = (): ExpiryScheduler => {
  let built: EventBridgeExpiryScheduler | undefined;
  const scheduler = () =>
    (built ??= new EventBridgeExpiryScheduler({
      groupName: required('SCHEDULE_GROUP'),
      targetArn: required('EXPIRY_FUNCTION_ARN'),
      roleArn: required('SCHEDULER_ROLE_ARN'),
    }));
  return {
    schedule: async (requestId, atIso) => scheduler().schedule(requestId, atIso),
    cancel: async (requestId) => scheduler().cancel(requestId),
  };
};

const required = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

let deployed: AppDeps | undefined;

/** The deployed world, from the function's environment, built once per cold start. */
export const wiring = (): AppDeps =>
  (deployed ??= createAppDeps({
    tableName: required('TABLE_NAME'),
    urls: { baseUrl: required('BASE_URL'), appUrl: required('APP_URL') },
    notifier: new AwsNotifier(required('EMAIL_FROM_ADDRESS')),
    scheduler: eventBridgeScheduler(),
  }));
