import { describe, expect, it } from 'vitest';
import { itemSize, writeUnitsOf, type StoredItem } from '../../bench/cost/item-size.ts';
import { transactionItemUnits, transactionWriteUnits, type IndexKeys } from '../../bench/cost/transaction-capacity.ts';

/**
 * How the cost meter prices a TransactWriteItems (DynamoDB Local misreports one of several items).
 * The expected units are what DynamoDB Local reports for the same item written alone in a
 * transaction, measured when the meter was written: 2 per started kilobyte, and 2 per kilobyte
 * more for each index entry added or changed, twice that when the entry's key moves.
 */
const byOrg: IndexKeys = { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' };
const byStatus: IndexKeys = { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' };

const item = (sk: string, extra: StoredItem = {}): StoredItem => ({ pk: { S: 'REQ#1' }, sk: { S: sk }, ...extra });
const padding = (bytes: number): StoredItem => ({ v: { S: 'x'.repeat(bytes) } });

describe('item sizes', () => {
  it('adds attribute names and values as DynamoDB sizes them', () => {
    // pk(2) + 'REQ#1'(5) + sk(2) + 'A'(1) + n(1) + 12345 (5 digits: 3 + 1) + b(1) + true(1) + m(1) + map(3 + k(1) + 'v'(1) + 1)
    expect(itemSize(item('A', { n: { N: '12345' }, b: { BOOL: true }, m: { M: { k: { S: 'v' } } } }))).toBe(2 + 5 + 2 + 1 + 1 + 4 + 1 + 1 + 1 + 6);
    expect(writeUnitsOf(item('A'))).toBe(1);
    expect(writeUnitsOf(item('A', padding(3000)))).toBe(3);
    expect(writeUnitsOf(undefined)).toBe(0);
  });
});

describe('transaction write units', () => {
  it('bills each item twice a plain write of its larger image', () => {
    expect(transactionItemUnits({ kind: 'Put', tableName: 't', after: item('A') }, [])).toBe(2);
    expect(transactionItemUnits({ kind: 'Put', tableName: 't', after: item('A', padding(3000)) }, [])).toBe(6);
    expect(transactionItemUnits({ kind: 'Update', tableName: 't', before: item('A', padding(3000)), after: item('A') }, [])).toBe(6);
    expect(transactionItemUnits({ kind: 'Delete', tableName: 't', before: item('A') }, [])).toBe(2);
    expect(transactionItemUnits({ kind: 'ConditionCheck', tableName: 't', before: item('A'), after: item('A') }, [byOrg])).toBe(2);
  });

  it('adds the index entries the write adds, changes or moves', () => {
    const inOrg = { gsi1pk: { S: 'ORG#1' }, gsi1sk: { S: 'A' } };
    expect(transactionItemUnits({ kind: 'Put', tableName: 't', after: item('A', inOrg) }, [byOrg, byStatus])).toBe(4);
    const pending = { gsi2pk: { S: 'ORG#1#pending' }, gsi2sk: { S: 'A' } };
    const opened = { gsi2pk: { S: 'ORG#1#opened' }, gsi2sk: { S: 'A' } };
    expect(transactionItemUnits({ kind: 'Update', tableName: 't', before: item('A', { ...inOrg, ...pending }), after: item('A', { ...inOrg, ...opened }) }, [byOrg, byStatus])).toBe(
      2 * (1 + 1 + 2),
    );
    expect(transactionItemUnits({ kind: 'Delete', tableName: 't', before: item('A', inOrg) }, [byOrg])).toBe(4);
  });

  it('sums the items, each with its own table indexes', () => {
    const inOrg = { gsi1pk: { S: 'ORG#1' }, gsi1sk: { S: 'A' } };
    const units = transactionWriteUnits(
      [
        { kind: 'Put', tableName: 'main', after: item('A', inOrg) },
        { kind: 'Put', tableName: 'main', after: item('B') },
        { kind: 'Update', tableName: 'rates', before: item('C', inOrg), after: item('C', inOrg) },
      ],
      (tableName) => (tableName === 'main' ? [byOrg] : []),
    );
    expect(units).toBe(4 + 2 + 2);
  });
});
