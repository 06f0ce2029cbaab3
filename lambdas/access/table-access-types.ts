import type { INDEXES } from '#store/table.ts';

/**
 * IAM actions on the table's items, as DynamoDB authorises them. A TransactWriteItems is
 * authorised item by item as PutItem, UpdateItem, DeleteItem or ConditionCheckItem, a
 * TransactGetItems as GetItem: neither has an action of its own to declare.
 */
export const ITEM_ACTIONS = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'Query', 'BatchGetItem', 'BatchWriteItem', 'Scan'] as const;
export type ItemAction = (typeof ITEM_ACTIONS)[number];

/** The actions that change an item (so need the table key's encrypt side too). */
export const WRITE_ACTIONS: ReadonlySet<ItemAction> = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** What the webhook fan-out's event source mapping calls on the table's stream, with the function's role. */
export const STREAM_ACTIONS = ['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'] as const;

/**
 * The partition-key prefixes of the table's items (DESIGN-KEYS.md): a declaration names the ones
 * a function touches. Rate windows are told apart by what they count, so a function that only
 * counts an integration's posts cannot touch an organisation's window.
 */
export const PARTITIONS = [
  'ORG#',
  'APIKEY#',
  'APIKEYREF#',
  'REQ#',
  'LINK#',
  'SHARE#',
  'SHARELINK#',
  'AUDIT#',
  'APIREAD#',
  'IDEM#',
  'RATE#org#',
  'RATE#integration#',
  'LOGIN#',
  'SIGNIN#',
  'SESSION#',
  'INBOUND#',
  'INTEGRATION#',
  'TRIGGER#',
  'DELIVERY#',
  'SIGNING_KEYS',
  'HELPDESK_INTEGRATIONS',
  'TICKETS#',
] as const;
export type Partition = (typeof PARTITIONS)[number];

/** The prefixes of the indexes' partition keys (DESIGN-KEYS.md, Indexes). */
export const INDEX_PARTITIONS = ['ORG#', 'DUE#', 'SHAREDUE#', 'DELIVERY_DUE#'] as const;
export type IndexPartition = (typeof INDEX_PARTITIONS)[number];

export type IndexName = keyof typeof INDEXES;

/** Each item action with the partition-key prefixes it may name. */
export type ItemGrants = Readonly<Partial<Record<ItemAction, readonly Partition[]>>>;

/** What one function may do with the table: the single source of its IAM policy and of the local check. */
export interface TableAccess {
  /**
   * The item actions it uses on the table itself, each with the partition-key prefixes of the
   * items it names (`Query` here is a query of the table, not of an index).
   */
  readonly items: ItemGrants;
  /** The indexes it queries, each with the prefixes of the index partitions it asks for. */
  readonly indexes?: Readonly<Partial<Record<IndexName, readonly IndexPartition[]>>>;
  /** Reads the table's stream: only the webhook fan-out, through its event source mapping. */
  readonly stream?: boolean;
}

/** A function that never touches the table (pages, fallback, routes served without data). */
export const NO_TABLE_ACCESS: TableAccess = { items: {} };

/**
 * The IAM StringLike pattern of a declared prefix: `ORG#` covers every key that starts with it
 * (`ORG#*`); a key without a `#` (`SIGNING_KEYS`) is a whole partition key and matches only itself.
 */
export const keyPattern = (prefix: string) => (prefix.endsWith('#') ? `${prefix}*` : prefix);

/** Whether a partition key matches one of the prefixes, as IAM matches their patterns. */
export const matchesPrefix = (key: string, prefixes: readonly string[]) =>
  prefixes.some((prefix) => (prefix.endsWith('#') ? key.startsWith(prefix) : key === prefix));

const mergeLists = <K extends string, V>(lists: ReadonlyArray<Readonly<Partial<Record<K, readonly V[]>>> | undefined>) => {
  const merged: Partial<Record<K, V[]>> = {};
  for (const list of lists) {
    for (const [name, values] of Object.entries(list ?? {}) as Array<[K, readonly V[]]>) merged[name] = [...new Set([...(merged[name] ?? []), ...values])];
  }
  return merged;
};

/**
 * The union of several declarations: building blocks of one (an API key caller, an audited
 * change, ...), or the routes that share a handler entry, which share one function and one role.
 */
export const unionOf = (...accesses: readonly TableAccess[]): TableAccess => {
  const indexes = mergeLists(accesses.map((access) => access.indexes));
  return {
    items: mergeLists(accesses.map((access) => access.items)),
    ...(Object.keys(indexes).length ? { indexes } : {}),
    ...(accesses.some((access) => access.stream) ? { stream: true } : {}),
  };
};

/** The declared item actions, in ITEM_ACTIONS order. */
export const itemActionsOf = (access: TableAccess): ItemAction[] => ITEM_ACTIONS.filter((action) => (access.items[action]?.length ?? 0) > 0);

export const touchesTable = (access: TableAccess) => itemActionsOf(access).length > 0 || Object.keys(access.indexes ?? {}).length > 0 || access.stream === true;

/** True when the function writes (so the table key must encrypt for it, not only decrypt). */
export const writesTable = (access: TableAccess) => itemActionsOf(access).some((action) => WRITE_ACTIONS.has(action));
