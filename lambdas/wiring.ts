import type { Logger } from '@aws-lambda-powertools/logger';
import { systemClock, type Clock } from '#core/clock.ts';
import type { Notifier } from '#core/ports.ts';
import type { PublicUrls } from '#core/request-view.ts';
import { createDocumentClient, type Documents } from '#store/dynamo.ts';
import { createRepositories } from '#store/repositories.ts';
import { AwsNotifier } from '#adapters/ses-sns-notifier.ts';
import type { AppDeps } from './app-deps.ts';
import { createLogger } from './logger.ts';

export interface WiringOptions {
  tableName: string;
  urls: PublicUrls;
  notifier: Notifier;
  db?: Documents;
  clock?: Clock;
  logger?: Logger;
}

/** Builds the dependencies; the local runtime and tests call this with their own stand-ins. */
export const createAppDeps = (options: WiringOptions): AppDeps => {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger();
  const db = options.db ?? createDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const repositories = createRepositories(db, options.tableName, clock, (error) =>
    logger.warn('rate limiter throttled; letting the call through', { errorName: (error as Error).name }),
  );
  return { clock, logger, db, tableName: options.tableName, urls: options.urls, notifier: options.notifier, ...repositories };
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
  }));
