import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, type BatchGetCommandOutput, type GetCommandInput, type GetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Documents } from './dynamo.ts';
import { TABLE_KEYS } from './table.ts';

/** DynamoDB's limit of keys in one BatchGetItem. */
const BATCH_LIMIT = 100;

interface PendingRead {
  input: GetCommandInput;
  resolve(output: GetCommandOutput): void;
  reject(error: unknown): void;
}

const keyOf = (key: Record<string, unknown> | undefined) => `${String(key?.[TABLE_KEYS.partitionKey])}\u0000${String(key?.[TABLE_KEYS.sortKey])}`;

/** A plain read of a whole item by its key: the only kind a batch can stand in for. */
const coalescible = (command: unknown): command is GetCommand => {
  if (!(command instanceof GetCommand)) return false;
  const input = command.input;
  return input.ProjectionExpression === undefined && input.AttributesToGet === undefined && input.ReturnConsumedCapacity === undefined;
};

/** Runs an invocation with its reads batched; AppDeps carries it for the API handler. */
export interface ReadBatching {
  scope<T>(call: () => T): T;
}

/**
 * A document client that, within one invocation, sends the single-item reads started together
 * as one BatchGetItem.
 *
 * An API call reads its key, its organisation and often the record it names; the stores read
 * each on its own, in parallel. Every SDK call costs about a millisecond of CPU in the function
 * and a round trip to the table, so three parallel reads cost nearly three times one. Reads
 * issued in the same turn of the event loop (before any of them could have answered) are sent
 * together instead: the stores stay as they are, and a read alone is still a GetItem.
 *
 * A batch is strongly consistent when any of its reads asks to be (stronger than asked never
 * hurts a read). Keys DynamoDB leaves unprocessed (throttling) are read one by one, through the
 * SDK's own retries. Batching holds only inside `scope`, one invocation's: locally many
 * functions share one client, and a batch must be one function's to be checked against its
 * table access as IAM would. It shares the given client's configuration and middleware.
 */
export class CoalescingDocuments extends DynamoDBDocumentClient implements ReadBatching {
  private readonly invocation = new AsyncLocalStorage<PendingReads>();

  constructor(documents: Documents) {
    super(documents, documents.config.translateConfig);
  }

  /** Runs one invocation: its reads that start together are batched. */
  scope<T>(call: () => T): T {
    return this.invocation.run(new PendingReads((command) => super.send(command as GetCommand) as Promise<unknown>), call);
  }

  // Any of the SDK's send overloads; only a plain read inside a scope is held back for a batch.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override send(command: any, optionsOrCallback?: any, callback?: any): any {
    const pending = this.invocation.getStore();
    if (pending && optionsOrCallback === undefined && coalescible(command)) return pending.add(command.input);
    return super.send(command, optionsOrCallback, callback);
  }
}

/** The reads of one invocation waiting for the current turn of the event loop to end. */
class PendingReads {
  private waiting: PendingRead[] = [];

  /** `send` is the client's own, unbatched. */
  constructor(private readonly send: (command: GetCommand | BatchGetCommand) => Promise<unknown>) {}

  add(input: GetCommandInput): Promise<GetCommandOutput> {
    return new Promise((resolve, reject) => {
      // setImmediate runs once every promise continuation of this turn has, so reads started a
      // few awaits apart (middleware after middleware) still meet in one batch.
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ input, resolve, reject });
    });
  }

  private flush() {
    const reads = this.waiting;
    this.waiting = [];
    const byTable = new Map<string, PendingRead[]>();
    for (const read of reads) byTable.set(read.input.TableName!, [...(byTable.get(read.input.TableName!) ?? []), read]);
    for (const [tableName, tableReads] of byTable) {
      if (tableReads.length === 1) this.single(tableReads[0]!);
      else void this.batch(tableName, tableReads);
    }
  }

  private single(read: PendingRead) {
    (this.send(new GetCommand(read.input)) as Promise<GetCommandOutput>).then(read.resolve, read.reject);
  }

  private async batch(tableName: string, reads: PendingRead[]) {
    // The same item asked for twice is one key in the batch (DynamoDB refuses duplicates).
    const byKey = new Map<string, PendingRead[]>();
    for (const read of reads) {
      const key = keyOf(read.input.Key);
      byKey.set(key, [...(byKey.get(key) ?? []), read]);
    }
    const consistent = reads.some((read) => read.input.ConsistentRead === true);
    const groups = [...byKey.values()];
    const chunks = Array.from({ length: Math.ceil(groups.length / BATCH_LIMIT) }, (_, i) => groups.slice(i * BATCH_LIMIT, (i + 1) * BATCH_LIMIT));
    await Promise.all(chunks.map((chunk) => this.batchChunk(tableName, chunk, consistent)));
  }

  /** Up to 100 distinct keys, each with the reads waiting for it. */
  private async batchChunk(tableName: string, chunk: PendingRead[][], consistent: boolean) {
    try {
      const output = (await this.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: chunk.map((group) => group[0]!.input.Key!), ConsistentRead: consistent } } }),
      )) as BatchGetCommandOutput;
      const found = new Map((output.Responses?.[tableName] ?? []).map((item) => [keyOf(item), item]));
      const unprocessed = new Set((output.UnprocessedKeys?.[tableName]?.Keys ?? []).map((key) => keyOf(key)));
      for (const group of chunk) {
        const key = keyOf(group[0]!.input.Key);
        for (const read of group) {
          if (unprocessed.has(key)) this.single(read);
          else read.resolve({ $metadata: output.$metadata, Item: found.get(key) });
        }
      }
    } catch (error) {
      for (const read of chunk.flat()) read.reject(error);
    }
  }
}
