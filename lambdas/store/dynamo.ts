import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoConnection {
  endpoint?: string;
  region?: string;
  /** How long one attempt may take before the SDK gives up on it (and retries); see DEPLOYED_TIMEOUTS. */
  requestTimeoutMs?: number;
  /** Attempts per call, the first included (the SDK's default is 3). */
  maxAttempts?: number;
}

/**
 * Against DynamoDB itself an attempt that has not answered in 2 s is stuck, not slow: the SDK
 * abandons it and retries (a transaction with the same ClientRequestToken, so one that did commit
 * is not applied twice), and three attempts end well inside the API functions' 10 s, so a caller
 * gets a 503 with Retry-After instead of a gateway timeout. DynamoDB Local on a busy machine can
 * pause for seconds, so a local client keeps no timeout unless asked for one.
 */
const DEPLOYED_TIMEOUTS = { connectionTimeoutMs: 1000, requestTimeoutMs: 2000 };

/**
 * A local engine's clients: the access key its data is kept under (set by lambdas/local/engine-access.ts
 * for an on-disk engine; a shared in-memory engine takes any), and one region, which names the
 * engine's database file with the key.
 */
export const LOCAL_ACCESS_KEY_VARIABLE = 'DYNAMODB_LOCAL_ACCESS_KEY';
export const LOCAL_ENGINE_REGION = 'eu-west-2';
export const localEngineCredentials = () => ({ accessKeyId: process.env[LOCAL_ACCESS_KEY_VARIABLE] ?? 'local', secretAccessKey: 'local' });

/** One document client per process; built once at cold start by wiring.ts. */
export const createDocumentClient = ({ endpoint, region, requestTimeoutMs, maxAttempts }: DynamoConnection = {}) => {
  const config: DynamoDBClientConfig = { region: region ?? process.env.AWS_REGION ?? 'eu-west-2' };
  const timeoutMs = requestTimeoutMs ?? (endpoint ? undefined : DEPLOYED_TIMEOUTS.requestTimeoutMs);
  if (timeoutMs !== undefined) {
    config.requestHandler = {
      connectionTimeout: Math.min(timeoutMs, DEPLOYED_TIMEOUTS.connectionTimeoutMs),
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
    };
  }
  if (maxAttempts !== undefined) config.maxAttempts = maxAttempts;
  if (endpoint) {
    // Credentials of the local engine's own (lambdas/local/engine-access.ts), never a developer's
    // real profile; its region too, which names the engine's database file with the key.
    config.endpoint = endpoint;
    config.credentials = localEngineCredentials();
    config.region = LOCAL_ENGINE_REGION;
  }
  const client = new DynamoDBClient(config);
  // The SDK's logger middleware builds a redacted copy of every call's input and output for its
  // logger before calling it, though ours is the SDK's default that logs nothing: a walk of every
  // item read (a list of 50 requests, a page of 1,000 events) on each call, for nothing. We log
  // the store's failures ourselves, never through the SDK's logger.
  client.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
};

export type Documents = DynamoDBDocumentClient;

/** The per-item reasons of a cancelled transaction, as `ConditionalCheckFailed`, `None`, ... */
export const cancellationCodes = (error: unknown): string[] | null => {
  if (!error || typeof error !== 'object' || (error as { name?: string }).name !== 'TransactionCanceledException') {
    return null;
  }
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  if (reasons?.length) return reasons.map((reason) => reason.Code ?? 'None');
  // Some engines only put the reasons in the message: "... [ConditionalCheckFailed, None]".
  const listed = /\[([A-Za-z, ]+)\]\s*$/.exec((error as Error).message ?? '');
  return listed ? listed[1].split(',').map((code) => code.trim()) : [];
};

export const isConditionFailure = (error: unknown) =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
