import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { AuditType } from '../../lambdas/core/audit-types.ts';
import type { AuditEntryInput } from '../../lambdas/core/ports.ts';
import { ensureTable } from '../../lambdas/local/table-bootstrap.ts';
import { AuditLog, type TransactItem } from '../../lambdas/store/audit-log.ts';
import { createDocumentClient, type Documents } from '../../lambdas/store/dynamo.ts';
import { IdempotentCommits } from '../../lambdas/store/idempotent-commit.ts';

/**
 * The audit log against DynamoDB Local, with no in-process queue: the head item's condition and
 * the entry's attribute_not_exists alone must keep the sequence gap-free and the hash chain
 * intact when several processes append at once, and a change whose own condition fails must
 * leave neither the change nor an entry behind.
 */
const TABLE = `audit-log-${newId()}`;
const GENESIS = '0'.repeat(64);
const clock: Clock = { now: () => new Date() };

/** Each "process" has its own document client and its own AuditLog, as separate Lambda containers would. */
const clients: Documents[] = [];
const processLog = () => {
  const db = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
  clients.push(db);
  return new AuditLog(db, TABLE, clock, { serialiseInProcess: false });
};
let db: Documents;

beforeAll(async () => {
  db = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
  clients.push(db);
  await ensureTable(db, TABLE);
});
afterAll(() => clients.forEach((client) => client.destroy()));

// The log chains whatever type it is given: made-up types keep these entries apart from any the service writes.
const input = (orgId: string, marker: string, type = 'test.appended'): AuditEntryInput => ({
  orgId,
  type: type as AuditType,
  actor: { type: 'api', label: 'Integration key', id: 'key-1' },
  clientId: null,
  requestId: null,
  data: { details: { marker } },
});

const entries = async (orgId: string) => {
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
        ExpressionAttributeValues: { ':pk': `AUDIT#${orgId}`, ':seq': 'SEQ#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

const head = async (orgId: string) =>
  (await db.send(new GetCommand({ TableName: TABLE, Key: { pk: `AUDIT#${orgId}`, sk: 'HEAD' }, ConsistentRead: true })))
    .Item;

const item = async (pk: string, sk = 'ITEM') => (await db.send(new GetCommand({ TableName: TABLE, Key: { pk, sk }, ConsistentRead: true }))).Item;

/** Sequence 1..N in order, no twin, each prevHash the previous hash, each hash recomputable, head at N. */
const expectIntactChain = async (orgId: string, length: number) => {
  const items = await entries(orgId);
  expect(items.map((entry) => entry.seq)).toEqual(Array.from({ length }, (_, i) => i + 1));
  items.forEach((entry, index) => {
    expect(entry.prevHash, `prevHash of ${entry.seq}`).toBe(index === 0 ? GENESIS : items[index - 1].hash);
    const { pk: _pk, sk: _sk, kind: _kind, hash, ...unsigned } = entry;
    expect(sha256Hex(canonicalize(unsigned)!), `hash of ${entry.seq}`).toBe(hash);
  });
  expect(await head(orgId)).toMatchObject({ n: length, hash: items[length - 1].hash });
  return items;
};

/** A put of a new item that goes into the same transaction as the entry. */
const putNew = (pk: string): TransactItem => ({
  Put: { TableName: TABLE, Item: { pk, sk: 'ITEM', kind: 'test' }, ConditionExpression: 'attribute_not_exists(pk)' },
});
/** An update whose condition fails: the item does not exist. */
const updateMissing = (pk: string): TransactItem => ({
  Update: {
    TableName: TABLE,
    Key: { pk, sk: 'ITEM' },
    UpdateExpression: 'SET touched = :yes',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':yes': true },
  },
});

describe('AuditLog', () => {
  it('starts a chain at 1 from the genesis hash and links each entry to the one before', async () => {
    const orgId = newId();
    const log = processLog();
    const first = await log.record(input(orgId, 'a'));
    const second = await log.append(input(orgId, 'b'), [putNew(`X#${orgId}`)]);
    expect(first).toMatchObject({ seq: 1, prevHash: GENESIS, orgId, type: 'test.appended' });
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toMatchObject({ seq: 2, prevHash: first.hash });
    const stored = await expectIntactChain(orgId, 2);
    expect(stored[1]).toMatchObject({ ...second, kind: 'audit', sk: 'SEQ#000000000002' });
    // The extra write committed with its entry.
    expect(await item(`X#${orgId}`)).toBeDefined();
  });

  it('keeps 1..N and the chain with 100 appends from four processes at once', async () => {
    // Each process appends one entry at a time, as a Lambda container serves one call at a time;
    // the four race each other on every append.
    const orgId = newId();
    const logs = [processLog(), processLog(), processLog(), processLog()];
    const started = Date.now();
    const appended = (
      await Promise.all(
        logs.map(async (log, p) => {
          const mine: Array<[number, string]> = [];
          for (let n = p; n < 100; n += logs.length) {
            const entry = await log.append(input(orgId, `m${n}`), [putNew(`P#${orgId}#${n}`)]);
            mine.push([entry.seq, `m${n}`]);
          }
          return mine;
        }),
      )
    ).flat();
    const elapsed = Date.now() - started;
    expect(appended.map(([seq]) => seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const stored = await expectIntactChain(orgId, 100);
    // Every append is there exactly once, under the sequence number its caller was told.
    const bySeq = new Map(appended);
    for (const entry of stored) expect(entry.data.details.marker).toBe(bySeq.get(entry.seq));
    for (let n = 0; n < 100; n++) expect(await item(`P#${orgId}#${n}`), `extra write ${n}`).toBeDefined();
    console.info(`100 appends from 4 unserialised AuditLogs: ${elapsed} ms`);
  });

  it('keeps 1..N and the chain with a burst of 40 appends at once across four processes', async () => {
    const orgId = newId();
    const logs = [processLog(), processLog(), processLog(), processLog()];
    const started = Date.now();
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, n) => logs[n % logs.length].append(input(orgId, `b${n}`), [])),
    );
    const elapsed = Date.now() - started;
    const stored = await expectIntactChain(orgId, 40);
    const bySeq = new Map(appended.map((entry, n) => [entry.seq, `b${n}`]));
    expect(bySeq.size).toBe(40);
    for (const entry of stored) expect(entry.data.details.marker).toBe(bySeq.get(entry.seq));
    console.info(`burst of 40 appends across 4 unserialised AuditLogs: ${elapsed} ms`);
  });

  it('keeps each organisation’s sequence its own', async () => {
    const [orgA, orgB] = [newId(), newId()];
    const logs = [processLog(), processLog()];
    await Promise.all(
      Array.from({ length: 30 }, (_, n) => logs[n % 2].record(input(n % 3 ? orgA : orgB, `o${n}`))),
    );
    await expectIntactChain(orgA, 20);
    await expectIntactChain(orgB, 10);
  });

  it('throws WriteConflict when an extra write fails its condition, without using a sequence number', async () => {
    const orgId = newId();
    const log = processLog();
    await log.record(input(orgId, 'first'));
    const before = await head(orgId);

    const failed = log.append(input(orgId, 'doomed'), [putNew(`Y#${orgId}`), updateMissing(`Missing#${orgId}`)]);
    await expect(failed).rejects.toBeInstanceOf(WriteConflict);
    await expect(failed).rejects.toMatchObject({ name: 'WriteConflict' });
    // Nothing of that transaction happened: no entry 2, no extra item, the head unchanged.
    expect(await head(orgId)).toEqual(before);
    expect(await item(`Y#${orgId}`)).toBeUndefined();
    expect(await item(`Missing#${orgId}`)).toBeUndefined();

    const next = await log.record(input(orgId, 'next'));
    expect(next).toMatchObject({ seq: 2, prevHash: before!.hash });
    const stored = await expectIntactChain(orgId, 2);
    expect(stored.map((entry) => entry.data.details.marker)).toEqual(['first', 'next']);
  });

  it('drops a replay prepared for a change refused by its own condition: the call\'s next transaction stores none', async () => {
    const orgId = newId();
    const commits = new IdempotentCommits(TABLE);
    const log = new AuditLog(db, TABLE, clock, { serialiseInProcess: false }, commits);
    const claim = { key: { pk: `IDEM#test#${newId()}`, sk: 'IDEM' }, token: newId() };
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...claim.key, status: 'in_progress', claim: claim.token } }));
    await commits.scope(async () => {
      commits.claimed(claim);
      commits.prepare({ statusCode: 200, headers: {}, body: '{"status":"completed"}' });
      await expect(log.append(input(orgId, 'refused'), [updateMissing(`Missing#${orgId}`)])).rejects.toBeInstanceOf(WriteConflict);
      // Another change of the same call (an expiry met on the way) carries no answer for the refused one.
      expect(commits.write()).toBeNull();
      await log.append(input(orgId, 'other change'), []);
    });
    expect(await item(claim.key.pk, claim.key.sk)).toMatchObject({ status: 'in_progress' });
    expect((await item(claim.key.pk, claim.key.sk))!.response).toBeUndefined();
  });

  it('under contention, changes that lose their own condition throw WriteConflict and leave no gap', async () => {
    const orgId = newId();
    const logs = [processLog(), processLog(), processLog()];
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, n) =>
        logs[n % 3].append(input(orgId, `c${n}`), n % 2 ? [updateMissing(`Gone#${orgId}#${n}`)] : [putNew(`Ok#${orgId}#${n}`)]),
      ),
    );
    results.forEach((result, n) => {
      if (n % 2) {
        expect(result.status, `append ${n}`).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(WriteConflict);
      } else {
        expect(result.status, `append ${n}`).toBe('fulfilled');
      }
    });
    const stored = await expectIntactChain(orgId, 15);
    expect(stored.map((entry) => entry.data.details.marker).sort()).toEqual(
      Array.from({ length: 15 }, (_, i) => `c${i * 2}`).sort(),
    );
  });

  it('lets exactly one of two processes make the same conditional change, with one entry', async () => {
    const orgId = newId();
    const [one, two] = [processLog(), processLog()];
    const claim = `Claim#${orgId}`;
    const results = await Promise.allSettled([
      one.append(input(orgId, 'one'), [putNew(claim)]),
      two.append(input(orgId, 'two'), [putNew(claim)]),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [rejected] = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected.reason).toBeInstanceOf(WriteConflict);
    const stored = await expectIntactChain(orgId, 1);
    expect(['one', 'two']).toContain(stored[0].data.details.marker);
  });
  it('appends several entries in one transaction: consecutive numbers, chained, the head moved once to the last', async () => {
    const orgId = newId();
    const log = processLog();
    await log.record(input(orgId, 'first'));
    const pair = await log.append([input(orgId, 'second'), input(orgId, 'third', 'test.follow_up')], [putNew(`P#${orgId}`)]);
    expect(pair.map((entry) => entry.seq)).toEqual([2, 3]);
    expect(pair[1].prevHash).toBe(pair[0].hash);
    expect(pair[1].occurredAt).toBe(pair[0].occurredAt);
    const stored = await expectIntactChain(orgId, 3);
    expect(stored.map((entry) => entry.type)).toEqual(['test.appended', 'test.appended', 'test.follow_up']);
    expect(await item(`P#${orgId}`)).toBeDefined();
    // A single append afterwards continues from the last of them.
    expect(await log.record(input(orgId, 'fourth'))).toMatchObject({ seq: 4, prevHash: pair[1].hash });
  });

  it('writes none of several entries when an extra write fails, and keeps them together under contention', async () => {
    const orgId = newId();
    const log = processLog();
    await log.record(input(orgId, 'first'));
    const failed = log.append([input(orgId, 'a'), input(orgId, 'b')], [updateMissing(`Missing#${orgId}`)]);
    await expect(failed).rejects.toBeInstanceOf(WriteConflict);
    await expectIntactChain(orgId, 1);

    const logs = [processLog(), processLog(), processLog()];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? logs[i % 3].append([input(orgId, `pair-${i}`), input(orgId, `pair-${i}`, 'test.follow_up')], [])
          : logs[i % 3].record(input(orgId, `single-${i}`)),
      ),
    );
    const stored = await expectIntactChain(orgId, 1 + 6 * 2 + 6);
    // Each pair's follow-up comes right after its first entry.
    stored.forEach((entry, index) => {
      if (entry.type === 'test.follow_up') expect(stored[index - 1].data.details.marker).toBe(entry.data.details.marker);
    });
  });

  it('refuses entries of different organisations in one transaction', async () => {
    await expect(processLog().append([input(newId(), 'a'), input(newId(), 'b')], [])).rejects.toThrow();
  });
});
