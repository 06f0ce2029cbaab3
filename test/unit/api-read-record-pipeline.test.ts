import { gzipSync } from 'node:zlib';
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { apiReadOf, type ApiRead } from '../../lambdas/core/api-reads.ts';
import type { Caller } from '../../lambdas/core/caller.ts';
import { API_READ_LINE_KIND, apiReadLine, LogLineApiReadLog } from '../../lambdas/adapters/api-read-lines.ts';
import { apiReadOfLine } from '../../lambdas/adapters/api-read-line-parser.ts';
import { DynamoApiReadStore } from '../../lambdas/store/api-read-log.ts';
import type { Documents } from '../../lambdas/store/dynamo.ts';
import { createHandler } from '../../lambdas/workers/api-read-recorder.ts';
import { PendingApiReads } from '../../lambdas/local/pending-api-reads.ts';

/**
 * How a read record travels off the read path: a log line from the reading function
 * (adapters/api-read-lines.ts), the recorder the log subscription invokes (workers/api-read-recorder.ts),
 * the batch store (store/api-read-log.ts), and locally the pending records stored after the answers
 * (local/pending-api-reads.ts).
 */
const caller = {
  org: { id: '01j00000000000000000000org' },
  apiKey: { id: '01j00000000000000000000key', name: 'Nightly report', clientId: null, hash: 'h'.repeat(64) },
  sourceIp: '203.0.113.9',
} as unknown as Caller;
const readAt = (ms: number) => apiReadOf(caller, { route: 'GET /v1/requests/{id}', status: 200, records: { requests: ['01j0000000000000000000req1'] } }, new Date(Date.UTC(2030, 4, 1) + ms));

/** A subscription delivery as CloudWatch Logs sends it: base64 of gzip of JSON. */
const delivery = (messages: string[], messageType = 'DATA_MESSAGE'): CloudWatchLogsEvent => {
  const decoded: CloudWatchLogsDecodedData = {
    owner: '123456789012',
    logGroup: '/aws/lambda/GetRequest',
    logStream: '2030/05/01/[$LATEST]abc',
    subscriptionFilters: ['ApiReads'],
    messageType,
    logEvents: messages.map((message, i) => ({ id: String(i), timestamp: Date.UTC(2030, 4, 1), message })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(decoded))).toString('base64') } };
};
const quietLogger = () => ({ info: vi.fn(), warn: vi.fn() });

describe('a read record as a log line', () => {
  it('is one JSON line at INFO with the kind the subscription filter matches, and reads back as the same record', async () => {
    const lines: string[] = [];
    const read = readAt(0);
    await new LogLineApiReadLog((text) => lines.push(text)).record(read);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(lines[0]!.slice(0, -1)).not.toContain('\n');
    const parsed = JSON.parse(lines[0]!);
    expect(parsed).toMatchObject({ level: 'INFO', kind: API_READ_LINE_KIND });
    expect(apiReadOfLine(lines[0]!)).toEqual(read);
  });

  it('fails the read when the line cannot be written, so no read is served without its record', async () => {
    const log = new LogLineApiReadLog(() => {
      throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    });
    await expect(log.record(readAt(0))).rejects.toThrow('EPIPE');
  });

  it('is told apart from every other line: other logs, malformed records and text are not records', () => {
    const record = readAt(0);
    expect(apiReadOfLine(JSON.stringify({ level: 'INFO', message: 'request served', service: 'credential-handoff' }))).toBeNull();
    expect(apiReadOfLine(JSON.stringify({ kind: API_READ_LINE_KIND, apiRead: { ...record, orgId: 'ORG#other' } }))).toBeNull();
    expect(apiReadOfLine(JSON.stringify({ kind: API_READ_LINE_KIND, apiRead: { ...record, status: 500 } }))).toBeNull();
    expect(apiReadOfLine(JSON.stringify({ kind: 'audit', apiRead: record }))).toBeNull();
    expect(apiReadOfLine('START RequestId: 1f2e Version: $LATEST')).toBeNull();
    expect(apiReadOfLine(apiReadLine(record))).toEqual(record);
  });
});

describe('the recorder the log subscription invokes', () => {
  it('stores the records of a delivery and counts the matched lines that held none', async () => {
    const storeAll = vi.fn(async (_reads: readonly ApiRead[]) => undefined);
    const logger = quietLogger();
    const [first, second] = [readAt(0), readAt(1)];
    await createHandler({ store: { storeAll }, logger })(delivery([apiReadLine(first), '{"kind":"api_read","apiRead":{}}', apiReadLine(second)]));
    expect(storeAll).toHaveBeenCalledTimes(1);
    expect(storeAll.mock.calls[0]![0]).toEqual([first, second]);
    expect(logger.warn).toHaveBeenCalledWith('log lines without a read record', { skipped: 1 });
  });

  it('stores nothing for the control message CloudWatch Logs sends when the subscription is made', async () => {
    const storeAll = vi.fn(async (_reads: readonly ApiRead[]) => undefined);
    await createHandler({ store: { storeAll }, logger: quietLogger() })(delivery(['CWL CONTROL MESSAGE: Checking health of destination Lambda.'], 'CONTROL_MESSAGE'));
    expect(storeAll.mock.calls[0]![0]).toEqual([]);
  });

  it('fails when the records cannot be stored, so Lambda retries the delivery and then hands it to the dead-letter queue', async () => {
    const storeAll = vi.fn(async () => {
      throw new Error('ProvisionedThroughputExceededException');
    });
    await expect(createHandler({ store: { storeAll }, logger: quietLogger() })(delivery([apiReadLine(readAt(0))]))).rejects.toThrow('ProvisionedThroughputExceededException');
  });
});

/** A document client that records each BatchWriteItem and answers with what `unprocessed` leaves. */
const batchTable = (unprocessed: (items: unknown[], call: number) => unknown[] = () => []) => {
  const batches: Array<Array<{ PutRequest: { Item: Record<string, unknown> } }>> = [];
  const send = vi.fn(async (command: unknown) => {
    expect(command).toBeInstanceOf(BatchWriteCommand);
    const items = (command as BatchWriteCommand).input.RequestItems!.handoff as Array<{ PutRequest: { Item: Record<string, unknown> } }>;
    batches.push(items);
    const left = unprocessed(items, batches.length);
    return { UnprocessedItems: left.length ? { handoff: left } : {} };
  });
  return { db: { send } as unknown as Documents, batches };
};

describe('the read record store', () => {
  it('writes records 25 to a batch, each once under its organisation and id, with its TTL', async () => {
    const { db, batches } = batchTable();
    const reads = Array.from({ length: 30 }, (_, i) => readAt(i));
    await new DynamoApiReadStore(db, 'handoff').storeAll([...reads, reads[3]!]);
    expect(batches.map((batch) => batch.length)).toEqual([25, 5]);
    const item = batches[0]![0]!.PutRequest.Item;
    const { expiresAtEpoch, ...stored } = reads[0]!;
    expect(item).toEqual({ pk: `APIREAD#${caller.org.id}`, sk: `READ#${reads[0]!.id}`, kind: 'api_read', ttlEpoch: expiresAtEpoch, ...stored });
  });

  it('sends again what DynamoDB left unprocessed, and fails after five rounds of it', async () => {
    const once = batchTable((items, call) => (call === 1 ? items.slice(0, 2) : []));
    await new DynamoApiReadStore(once.db, 'handoff').storeAll([readAt(0), readAt(1), readAt(2)]);
    expect(once.batches.map((batch) => batch.length)).toEqual([3, 2]);

    const never = batchTable((items) => items);
    await expect(new DynamoApiReadStore(never.db, 'handoff').storeAll([readAt(0)])).rejects.toThrow('left unprocessed');
    expect(never.batches).toHaveLength(5);
  }, 10_000);
});

describe('pending read records (the local runtime)', () => {
  it('are stored after the read that made them, gathered into batches of at most 25', async () => {
    const stored: ApiRead[][] = [];
    const pending = new PendingApiReads(async (reads) => void stored.push(reads), () => undefined);
    const made = Array.from({ length: 30 }, (_, i) => readAt(i));
    await pending.record(made[0]!);
    // The read's answer does not wait for its record to be stored.
    expect(stored).toEqual([]);
    for (const read of made.slice(1)) await pending.record(read);
    await pending.settled();
    expect(stored.map((batch) => batch.length)).toEqual([25, 5]);
    expect(stored.flat()).toEqual(made);
  });

  it('keeps a batch that failed and stores it on the next try', async () => {
    const stored: ApiRead[] = [];
    const errors: unknown[] = [];
    let fail = true;
    const pending = new PendingApiReads(
      async (reads) => {
        if (fail) throw new Error('engine busy');
        stored.push(...reads);
      },
      (error) => errors.push(error),
    );
    const read = readAt(0);
    await pending.record(read);
    await pending.settled();
    expect(errors).toHaveLength(1);
    expect(stored).toEqual([]);
    fail = false;
    await pending.settled();
    expect(stored).toEqual([read]);
  });
});
