import { gunzipSync } from 'node:zlib';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';
import type { ApiRead } from '#core/api-reads.ts';
import { apiReadOfLine } from '#adapters/api-read-line-parser.ts';
import { createDocumentClient } from '#store/dynamo.ts';
import { DynamoApiReadStore } from '#store/api-read-log.ts';
import { createLogger } from '../logger.ts';

/** The records of one subscription delivery (base64 of gzip of JSON, as CloudWatch Logs sends it), and how many lines held none. */
export const apiReadsOfDelivery = (event: CloudWatchLogsEvent): { reads: ApiRead[]; skipped: number } => {
  const decoded = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8')) as CloudWatchLogsDecodedData;
  // CloudWatch Logs checks that it can reach the destination with one CONTROL_MESSAGE: no records.
  if (decoded.messageType !== 'DATA_MESSAGE') return { reads: [], skipped: 0 };
  const reads: ApiRead[] = [];
  let skipped = 0;
  for (const { message } of decoded.logEvents) {
    const read = apiReadOfLine(message);
    if (read) reads.push(read);
    else skipped++;
  }
  return { reads, skipped };
};

export interface ApiReadRecorderDeps {
  store: Pick<DynamoApiReadStore, 'storeAll'>;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/**
 * The read records' recorder: the reading functions' log groups deliver their `api_read` lines
 * here (lib/api-read-records.ts), and it stores them (store/api-read-log.ts). A failure throws:
 * Lambda retries the delivery (it is invoked asynchronously) and then hands it to the recorder's
 * dead-letter queue, whose alarm tells the operator; storing a record twice leaves it once.
 * Lines the filter matched that hold no record are counted, never stored.
 */
export const createHandler = (deps: ApiReadRecorderDeps) => async (event: CloudWatchLogsEvent) => {
  const { reads, skipped } = apiReadsOfDelivery(event);
  if (skipped > 0) deps.logger.warn('log lines without a read record', { skipped });
  await deps.store.storeAll(reads);
  deps.logger.info('read records stored', { stored: reads.length });
};

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler: the table alone, none of the API functions' wiring. */
export const handler = (event: CloudWatchLogsEvent) =>
  (built ??= createHandler({ store: new DynamoApiReadStore(createDocumentClient(), process.env.TABLE_NAME!), logger: createLogger() }))(event);
