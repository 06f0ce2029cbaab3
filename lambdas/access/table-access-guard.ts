import { AsyncLocalStorage } from 'node:async_hooks';
import { INDEXES, TABLE_KEYS } from '#store/table.ts';
import type { Documents } from '#store/dynamo.ts';
import { itemActionsOf, matchesPrefix, type IndexName, type ItemAction, type TableAccess } from './table-access-types.ts';

/** One item-level call as IAM would authorise it: the action, the index (if any) and the partition key it names. */
export interface TableUse {
  action: string;
  index?: string;
  /** The partition key value (of the index, for an index query); null when the call names none. */
  partitionKey: string | null;
}

export interface AccessDenial extends TableUse {
  functionName: string;
  reason: string;
}

/** The error DynamoDB answers when the caller's policy does not allow a call, by the same name. */
export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
  readonly $fault = 'client';
  readonly $metadata = { httpStatusCode: 400 };
  constructor(readonly denial: AccessDenial) {
    super(`${denial.functionName} is not authorized to perform dynamodb:${denial.action}${denial.index ? ` on index ${denial.index}` : ''}${denial.partitionKey === null ? '' : ` on partition ${redactedKey(denial.partitionKey)}`}: ${denial.reason}`);
  }
}

/** A key may end in a token's or secret's hash: only its prefix up to the first id goes into messages. */
const redactedKey = (key: string) => {
  const separator = key.indexOf('#');
  return separator < 0 ? key : `${key.slice(0, separator + 1)}…`;
};

interface Running {
  functionName: string;
  access: TableAccess;
}

export interface TableAccessGuardOptions {
  /** Refuse undeclared calls (default). Off, calls are only reported to `onUse`: to find what a function uses. */
  enforce?: boolean;
  /** Every checked call, with the function that made it. */
  onUse?: (functionName: string, use: TableUse, allowed: boolean) => void;
  /** Every call a function sends, once per command (a batch or a transaction is one call, whatever it names). */
  onCall?: (functionName: string, commandName: string) => void;
  /** Every refused call (it is also kept in `denials`). */
  onDenied?: (denial: AccessDenial) => void;
}

/**
 * Holds the local runtime to what the deployed functions' IAM policies allow: a middleware on the
 * document client checks each call made while a function runs (`run`) against that function's
 * declaration (lambdas/access/table-access.ts), as IAM does deployed, and refuses anything else
 * with an AccessDeniedException. Calls made outside any function (tests' own reads, the admin
 * CLI, the local stream poller's checkpoints) are not checked: deployed, they are no function's.
 */
export class TableAccessGuard {
  private readonly running = new AsyncLocalStorage<Running>();
  readonly denials: AccessDenial[] = [];

  constructor(private readonly options: TableAccessGuardOptions = {}) {}

  /** Runs `call` as the function `functionName` with its declaration. */
  run<T>(functionName: string, access: TableAccess, call: () => T): T {
    return this.running.run({ functionName, access }, call);
  }

  /** Checks every call this client sends from now on. */
  attach(db: Documents) {
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const running = this.running.getStore();
        if (running) this.check(running, context.commandName ?? 'UnknownCommand', args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'tableAccessGuard', override: true },
    );
    return this;
  }

  private check(running: Running, commandName: string, input: Record<string, unknown>) {
    this.options.onCall?.(running.functionName, commandName);
    // Only counting calls: nothing to check, and a measurement should not pay for the check.
    if (this.options.enforce === false && !this.options.onUse) return;
    for (const use of usesOf(commandName, input)) {
      const reason = refusal(running.access, use);
      this.options.onUse?.(running.functionName, use, reason === null);
      if (reason === null || this.options.enforce === false) continue;
      const denial: AccessDenial = { functionName: running.functionName, ...use, reason };
      this.denials.push(denial);
      this.options.onDenied?.(denial);
      throw new AccessDeniedException(denial);
    }
  }
}

/** Why the declaration does not allow the use, or null when it does. */
export const refusal = (access: TableAccess, use: TableUse): string | null => {
  if (use.index !== undefined) {
    if (use.action !== 'Query') return `${use.action} on an index is never declared`;
    const partitions = access.indexes?.[use.index as IndexName];
    if (!partitions) return `the index ${use.index} is not declared`;
    if (use.partitionKey === null) return 'the query names no partition key the check can read';
    if (!matchesPrefix(use.partitionKey, partitions)) return `the index partition is not one of ${partitions.join(', ')}`;
    return null;
  }
  const partitions = access.items[use.action as ItemAction];
  if (!partitions?.length) return `the action is not declared (declared: ${itemActionsOf(access).join(', ') || 'none'})`;
  if (use.partitionKey === null) return 'the call names no partition key the check can read';
  if (!matchesPrefix(use.partitionKey, partitions)) return `the partition is not one of ${partitions.join(', ')} for ${use.action}`;
  return null;
};

/** Item commands: their IAM action and where the item's key sits in the input. */
const SINGLE_ITEM: Record<string, { action: string; key: (input: Record<string, unknown>) => unknown }> = {
  GetItemCommand: { action: 'GetItem', key: (input) => input.Key },
  PutItemCommand: { action: 'PutItem', key: (input) => input.Item },
  UpdateItemCommand: { action: 'UpdateItem', key: (input) => input.Key },
  DeleteItemCommand: { action: 'DeleteItem', key: (input) => input.Key },
};

const TRANSACT_WRITE: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

/**
 * The item-level uses one command stands for, as IAM authorises it: a transaction item by item,
 * a batch as its batch action with every key it names, an index query on the index with the
 * index's partition key. Any other command (Scan, PartiQL, table operations) is a use of its own
 * name, which no declaration holds unless it means to.
 */
export const usesOf = (commandName: string, input: Record<string, unknown>): TableUse[] => {
  const single = SINGLE_ITEM[commandName];
  if (single) return [{ action: single.action, partitionKey: partitionOf(single.key(input)) }];
  switch (commandName) {
    case 'QueryCommand':
      return [queryUse(input)];
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems as Array<Record<string, Record<string, unknown>>> | undefined) ?? []).flatMap((item) =>
        Object.entries(item)
          .filter(([kind]) => kind in TRANSACT_WRITE)
          .map(([kind, operation]) => ({ action: TRANSACT_WRITE[kind]!, partitionKey: partitionOf(kind === 'Put' ? operation.Item : operation.Key) })),
      );
    case 'TransactGetItemsCommand':
      return ((input.TransactItems as Array<{ Get?: { Key?: unknown } }> | undefined) ?? []).map((item) => ({ action: 'GetItem', partitionKey: partitionOf(item.Get?.Key) }));
    case 'BatchGetItemCommand':
      return Object.values((input.RequestItems as Record<string, { Keys?: unknown[] }> | undefined) ?? {}).flatMap((request) =>
        (request.Keys ?? []).map((key) => ({ action: 'BatchGetItem', partitionKey: partitionOf(key) })),
      );
    case 'BatchWriteItemCommand':
      return Object.values((input.RequestItems as Record<string, Array<{ PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }>> | undefined) ?? {}).flatMap(
        (requests) => requests.map((request) => ({ action: 'BatchWriteItem', partitionKey: partitionOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key) })),
      );
    default:
      return [{ action: commandName.replace(/Command$/, ''), partitionKey: null }];
  }
};

const queryUse = (input: Record<string, unknown>): TableUse => {
  const indexName = typeof input.IndexName === 'string' ? input.IndexName : undefined;
  const index = indexName === undefined ? undefined : Object.values(INDEXES).find((candidate) => candidate.indexName === indexName);
  const keyAttribute = indexName === undefined ? TABLE_KEYS.partitionKey : index?.partitionKey;
  const partitionKey = keyAttribute === undefined ? null : queriedPartition(input, keyAttribute);
  return indexName === undefined ? { action: 'Query', partitionKey } : { action: 'Query', index: indexName, partitionKey };
};

/** The value the key condition sets the partition key attribute equal to (`pk = :pk`, `#name = :v`, either way round). */
const queriedPartition = (input: Record<string, unknown>, keyAttribute: string): string | null => {
  const names = (input.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  const values = (input.ExpressionAttributeValues as Record<string, unknown> | undefined) ?? {};
  const nameOf = (token: string) => (token.startsWith('#') ? names[token] : token);
  for (const clause of String(input.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const equality = /^\s*\(?\s*([#:]?[\w]+)\s*=\s*([#:]?[\w]+)\s*\)?\s*$/.exec(clause);
    if (!equality) continue;
    const [left, right] = [equality[1]!, equality[2]!];
    if (right.startsWith(':') && nameOf(left) === keyAttribute) return stringOf(values[right]);
    if (left.startsWith(':') && nameOf(right) === keyAttribute) return stringOf(values[left]);
  }
  return null;
};

/** The partition key of an item or key, in document form (`{ pk: 'ORG#…' }`) or marshalled (`{ pk: { S: 'ORG#…' } }`). */
const partitionOf = (key: unknown): string | null =>
  key && typeof key === 'object' ? stringOf((key as Record<string, unknown>)[TABLE_KEYS.partitionKey]) : null;

const stringOf = (value: unknown): string | null => {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { S?: unknown }).S === 'string') return (value as { S: string }).S;
  return null;
};
