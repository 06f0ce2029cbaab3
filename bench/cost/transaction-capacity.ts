/**
 * The write request units of a TransactWriteItems, worked out from each item's stored image before
 * and after it. DynamoDB Local reports a transaction of several items as if it held one (measured:
 * three 1 KB puts report 2 units, DynamoDB bills 6), so the cost meter prices transactions itself:
 * two units per started kilobyte of each item (the larger of its images), and the same for every
 * index entry the write adds, changes or removes (every index projects ALL, so an entry is the
 * item's size). A single-item transaction is where DynamoDB Local's figure can be trusted: the
 * meter checks this arithmetic against it there.
 */
import { writeUnitsOf, type StoredItem } from './item-size.ts';

/** A transaction bills each item write twice what a plain write of it would. */
const TRANSACTIONAL = 2;

export type TransactionItemKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

export interface TransactionItemImages {
  kind: TransactionItemKind;
  tableName: string;
  /** The stored item before the transaction, if there was one. */
  before?: StoredItem;
  /** The stored item after it, if there is one. */
  after?: StoredItem;
}

export interface IndexKeys {
  partitionKey: string;
  sortKey: string;
}

const inIndex = (item: StoredItem | undefined, index: IndexKeys) => item?.[index.partitionKey] !== undefined && item?.[index.sortKey] !== undefined;

const sameIndexKey = (a: StoredItem, b: StoredItem, index: IndexKeys) =>
  JSON.stringify([a[index.partitionKey], a[index.sortKey]]) === JSON.stringify([b[index.partitionKey], b[index.sortKey]]);

/** An index's writes: a new entry, a removed one, a changed one, or (its key moved) one removed and one added. */
const indexUnits = (item: TransactionItemImages, index: IndexKeys) => {
  const was = inIndex(item.before, index);
  const is = inIndex(item.after, index);
  if (!was && !is) return 0;
  if (!is) return writeUnitsOf(item.before);
  if (!was) return writeUnitsOf(item.after);
  return sameIndexKey(item.before!, item.after!, index)
    ? Math.max(writeUnitsOf(item.before), writeUnitsOf(item.after))
    : writeUnitsOf(item.before) + writeUnitsOf(item.after);
};

/** One item's units: a condition check bills as a write of the item it reads, and touches no index. */
export const transactionItemUnits = (item: TransactionItemImages, indexes: readonly IndexKeys[]) => {
  const tableUnits = Math.max(1, writeUnitsOf(item.before), item.kind === 'ConditionCheck' ? 0 : writeUnitsOf(item.after));
  const indexWrites = item.kind === 'ConditionCheck' ? 0 : indexes.reduce((sum, index) => sum + indexUnits(item, index), 0);
  return TRANSACTIONAL * (tableUnits + indexWrites);
};

export const transactionWriteUnits = (items: readonly TransactionItemImages[], indexesOf: (tableName: string) => readonly IndexKeys[]) =>
  items.reduce((sum, item) => sum + transactionItemUnits(item, indexesOf(item.tableName)), 0);
