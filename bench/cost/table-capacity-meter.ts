/**
 * DynamoDB request units, as on-demand bills them: a middleware on the service's document client
 * asks every call a counted function makes for its consumed capacity (ReturnConsumedCapacity
 * TOTAL, which DynamoDB Local reports, indexes included) and adds it up as read or write units.
 * Calls outside any function (the local stream poller's checkpoints, the bench's own set-up) are
 * not counted: deployed they are no one's, or Lambda's own stream reads, which are free.
 *
 * Two corrections where DynamoDB Local's figure is not DynamoDB's:
 * - TransactWriteItems: priced from the items' images (transaction-capacity.ts), read before and
 *   after the call with a client of the meter's own; single-item transactions are checked against
 *   DynamoDB Local's figure, and any difference is reported.
 * - A write refused by its condition reports nothing, yet is billed: one unit is counted for it.
 */
import { BatchGetItemCommand, DynamoDBClient, type BatchGetItemCommandOutput, type KeysAndAttributes } from '@aws-sdk/client-dynamodb';
import { TABLE_KEYS, indexList, rateTableNameOf } from '../../lambdas/store/table.ts';
import { isConditionFailure, type Documents } from '../../lambdas/store/dynamo.ts';
import type { InvocationMeter } from './invocation-meter.ts';
import type { StoredItem } from './item-size.ts';
import { transactionWriteUnits, type IndexKeys, type TransactionItemImages, type TransactionItemKind } from './transaction-capacity.ts';

/** The client command's names: the document client's commands run as them. */
const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);
const TRANSACT_WRITE = 'TransactWriteItemsCommand';
const TRANSACTION_KINDS: readonly TransactionItemKind[] = ['Put', 'Update', 'Delete', 'ConditionCheck'];

type Capacity = { CapacityUnits?: number } | Array<{ CapacityUnits?: number }> | undefined;
const unitsOf = (capacity: Capacity) => [capacity ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);

interface TransactionItem {
  kind: TransactionItemKind;
  tableName: string;
  key: { pk: string; sk: string };
}

export class TableCapacityMeter {
  readUnits = 0;
  writeUnits = 0;
  /** Single-item transactions whose priced units differ from DynamoDB Local's report. */
  readonly transactionMismatches: string[] = [];
  private readonly images: DynamoDBClient;

  constructor(
    private readonly invocations: InvocationMeter,
    private readonly tableName: string,
    endpoint: string,
  ) {
    this.images = new DynamoDBClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  }

  attach(db: Documents) {
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        const metered = READS.has(command) || WRITES.has(command) || command === TRANSACT_WRITE;
        if (!metered || !this.invocations.current()) return next(args);
        const counted = { ...args, input: { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' } };
        if (command === TRANSACT_WRITE) return this.transactWrite(counted, next);
        try {
          const answer = await next(counted);
          const units = unitsOf((answer.output as { ConsumedCapacity?: Capacity }).ConsumedCapacity);
          if (READS.has(command)) this.readUnits += units;
          else this.writeUnits += units;
          return answer;
        } catch (error) {
          if (WRITES.has(command) && isConditionFailure(error)) this.writeUnits += 1;
          throw error;
        }
      },
      { step: 'initialize', name: 'costTableCapacityMeter', override: true },
    );
    return this;
  }

  reset() {
    this.readUnits = 0;
    this.writeUnits = 0;
  }

  close() {
    this.images.destroy();
  }

  private async transactWrite<A extends { input: object }, R extends { output: unknown }>(args: A, next: (args: A) => Promise<R>): Promise<R> {
    const items = transactionItems(args.input as { TransactItems?: Array<Record<string, Record<string, unknown>>> });
    const before = await this.timed(() => this.read(items));
    let answer: R | undefined;
    try {
      answer = await next(args);
      return answer;
    } finally {
      // A cancelled transaction is billed too; its items are then as they were.
      const after = await this.timed(() => this.read(items));
      const images: TransactionItemImages[] = items.map((item, i) => ({ kind: item.kind, tableName: item.tableName, before: before[i], after: after[i] }));
      const units = transactionWriteUnits(images, (table) => this.indexesOf(table));
      this.writeUnits += units;
      const reported = answer && unitsOf((answer.output as { ConsumedCapacity?: Capacity }).ConsumedCapacity);
      if (items.length === 1 && reported !== undefined && reported !== units) this.transactionMismatches.push(`${items[0]!.kind}: priced ${units}, DynamoDB Local ${reported}`);
    }
  }

  private indexesOf(tableName: string): readonly IndexKeys[] {
    return tableName === rateTableNameOf(this.tableName) ? [] : indexList();
  }

  /** The stored images of the items' keys, in their order (undefined where none is stored). */
  private async read(items: readonly TransactionItem[]): Promise<Array<StoredItem | undefined>> {
    const request: Record<string, KeysAndAttributes> = {};
    for (const { tableName, key } of items) {
      request[tableName] ??= { Keys: [], ConsistentRead: true };
      request[tableName].Keys!.push({ [TABLE_KEYS.partitionKey]: { S: key.pk }, [TABLE_KEYS.sortKey]: { S: key.sk } });
    }
    const found = new Map<string, StoredItem>();
    let pending: Record<string, KeysAndAttributes> | undefined = request;
    while (pending && Object.keys(pending).length) {
      const answer: BatchGetItemCommandOutput = await this.images.send(new BatchGetItemCommand({ RequestItems: pending }));
      for (const [tableName, stored] of Object.entries(answer.Responses ?? {})) {
        for (const item of stored) found.set(addressOf(tableName, item[TABLE_KEYS.partitionKey]?.S, item[TABLE_KEYS.sortKey]?.S), item);
      }
      pending = answer.UnprocessedKeys;
    }
    return items.map(({ tableName, key }) => found.get(addressOf(tableName, key.pk, key.sk)));
  }

  private async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      const invocation = this.invocations.current();
      if (invocation) invocation.meteringMs += performance.now() - started;
    }
  }
}

const addressOf = (tableName: string, pk: string | undefined, sk: string | undefined) => JSON.stringify([tableName, pk, sk]);

/** A key attribute in document form (`'ORG#…'`) or marshalled (`{ S: 'ORG#…' }`). */
const textOf = (value: unknown) => (typeof value === 'string' ? value : String((value as { S?: string } | undefined)?.S));

/** Each transaction item's kind, table and key (a Put's key is in its item). */
const transactionItems = (input: { TransactItems?: Array<Record<string, Record<string, unknown>>> }): TransactionItem[] =>
  (input.TransactItems ?? []).map((entry) => {
    const kind = TRANSACTION_KINDS.find((candidate) => entry[candidate])!;
    const operation = entry[kind] as { TableName: string; Key?: Record<string, unknown>; Item?: Record<string, unknown> };
    const keyed = (kind === 'Put' ? operation.Item : operation.Key)!;
    return { kind, tableName: operation.TableName, key: { pk: textOf(keyed[TABLE_KEYS.partitionKey]), sk: textOf(keyed[TABLE_KEYS.sortKey]) } };
  });
