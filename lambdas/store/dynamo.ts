import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoConnection {
  endpoint?: string;
  region?: string;
}

/** One document client per process; built once at cold start by wiring.ts. */
export const createDocumentClient = ({ endpoint, region }: DynamoConnection = {}) => {
  const config: DynamoDBClientConfig = { region: region ?? process.env.AWS_REGION ?? 'eu-west-2' };
  if (endpoint) {
    // DynamoDB Local accepts any credentials; fixed ones keep a developer's real profile out of it.
    config.endpoint = endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
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
