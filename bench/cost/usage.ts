/**
 * From what the meters counted over a stretch of work to the usage of one unit of it (one handoff,
 * one read), line by line of the price list. The few figures that are not counted are modelled
 * here, each said where it is made.
 */
import type { FunctionConfig } from './deployed-functions.ts';
import type { FunctionUsage } from './invocation-meter.ts';
import { LOG_EVENT_OVERHEAD_BYTES, PLATFORM_LINES_PER_INVOCATION, platformLinesBytes } from './log-lines.ts';
import type { Usage } from './pricing.ts';

/**
 * SQS requests per delivery message: the SendMessage, and Lambda's event source mapping receiving
 * and deleting it. At a handoff's pace each receive brings one message (under load a receive and a
 * delete take up to ten, so this leans high).
 */
export const SQS_REQUESTS_PER_MESSAGE = 3;

export interface WindowCounts {
  /** Units of work done in the window (handoffs, or reads). */
  units: number;
  functions: ReadonlyMap<string, FunctionUsage>;
  readUnits: number;
  writeUnits: number;
  kmsSymmetricRequests: number;
  kmsAsymmetricRequests: number;
  queueMessages: number;
  scheduleApiCalls: number;
  /** Schedules armed during the window and still armed after it: each will fire once. */
  schedulesLeftArmed: number;
  emails: number;
  apiRequests: number;
  accessLogBytes: number;
  /** Bytes out to the internet: the API's answers and the webhook POSTs. */
  transferOutBytes: number;
  functionLogBytes: number;
  functionLogLines: number;
}

export const lambdaTotals = (functions: ReadonlyMap<string, FunctionUsage>, configOf: (name: string) => FunctionConfig) => {
  let invocations = 0;
  let gbSeconds = 0;
  let platformBytes = 0;
  for (const [name, usage] of functions) {
    const { memoryMb, architecture } = configOf(name);
    if (architecture !== 'arm64') throw new Error(`${name} runs on ${architecture}; the price list holds arm64 duration only`);
    invocations += usage.invocations;
    gbSeconds += (usage.billedMs / 1000) * (memoryMb / 1024);
    platformBytes += usage.invocations * platformLinesBytes(Math.round(usage.billedMs / usage.invocations), memoryMb);
  }
  return { invocations, gbSeconds, platformBytes };
};

/** The log bytes ingested in the window, by whose lines they are (each request has one access log line). */
export const logBytesOf = (counts: WindowCounts, configOf: (name: string) => FunctionConfig) => {
  const lambda = lambdaTotals(counts.functions, configOf);
  const events = counts.functionLogLines + lambda.invocations * PLATFORM_LINES_PER_INVOCATION + counts.apiRequests;
  const parts = { service: counts.functionLogBytes, platform: lambda.platformBytes, access: counts.accessLogBytes, eventOverhead: events * LOG_EVENT_OVERHEAD_BYTES };
  return { ...parts, total: parts.service + parts.platform + parts.access + parts.eventOverhead };
};

export const usagePerUnit = (counts: WindowCounts, configOf: (name: string) => FunctionConfig): Usage => {
  const lambda = lambdaTotals(counts.functions, configOf);
  const logBytes = logBytesOf(counts, configOf).total;
  const per = (quantity: number) => quantity / counts.units;
  return {
    httpApiRequests: per(counts.apiRequests),
    lambdaRequests: per(lambda.invocations),
    lambdaArmGbSeconds: per(lambda.gbSeconds),
    dynamoReadRequestUnits: per(counts.readUnits),
    dynamoWriteRequestUnits: per(counts.writeUnits),
    kmsSymmetricRequests: per(counts.kmsSymmetricRequests),
    kmsAsymmetricRequests: per(counts.kmsAsymmetricRequests),
    sqsRequests: per(counts.queueMessages * SQS_REQUESTS_PER_MESSAGE),
    schedulerApiCalls: per(counts.scheduleApiCalls),
    schedulerInvocations: per(counts.schedulesLeftArmed),
    sesEmails: per(counts.emails),
    logIngestionBytes: per(logBytes),
    transferOutBytes: per(counts.transferOutBytes),
  };
};
