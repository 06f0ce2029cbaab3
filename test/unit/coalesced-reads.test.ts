import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { CoalescingDocuments } from '../../lambdas/store/coalesced-reads.ts';
import { createDocumentClient } from '../../lambdas/store/dynamo.ts';

type Key = { pk: string; sk: string };
type Sent = { command: string; input: Record<string, any> };

/**
 * A coalescing client over a document client whose calls never leave the process: a middleware
 * answers them from an in-memory table, records what was sent, and can be told to fail a batch
 * or leave keys unprocessed.
 */
const harness = (options: { unprocessed?: (key: Key) => boolean; failBatch?: Error } = {}) => {
  const items = new Map<string, Record<string, unknown>>();
  const id = (key: Key) => `${key.pk}|${key.sk}`;
  const sent: Sent[] = [];
  const base = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
  base.middlewareStack.add(
    (_next, context) => async (args) => {
      const input = args.input as Record<string, any>;
      sent.push({ command: context.commandName!, input });
      return { output: answer(context.commandName!, input), response: {} } as never;
    },
    { step: 'initialize', priority: 'high', name: 'inMemoryTable' },
  );
  const answer = (command: string, input: Record<string, any>) => {
    if (command === 'GetItemCommand') return { $metadata: {}, Item: items.get(id(input.Key)) };
    if (command === 'PutItemCommand') {
      items.set(id(input.Item), input.Item);
      return { $metadata: {} };
    }
    if (command === 'BatchGetItemCommand') {
      if (options.failBatch) throw options.failBatch;
      const [[table, request]] = Object.entries(input.RequestItems as Record<string, { Keys: Key[] }>);
      const keys = request.Keys;
      const unprocessed = keys.filter((key) => options.unprocessed?.(key));
      const found = keys.filter((key) => !unprocessed.includes(key)).flatMap((key) => (items.has(id(key)) ? [items.get(id(key))!] : []));
      return { $metadata: {}, Responses: { [table]: found }, ...(unprocessed.length ? { UnprocessedKeys: { [table]: { Keys: unprocessed } } } : {}) };
    }
    throw new Error(`unexpected ${command}`);
  };
  const db = new CoalescingDocuments(base);
  const put = (pk: string, sk = 'A') => db.send(new PutCommand({ TableName: 't', Item: { pk, sk, value: `${pk}/${sk}` } }));
  const get = (pk: string, extra: Record<string, unknown> = {}) => db.send(new GetCommand({ TableName: 't', Key: { pk, sk: 'A' }, ...extra }));
  const reads = () => sent.filter((s) => s.command !== 'PutItemCommand');
  return { db, put, get, reads };
};

describe('coalesced reads', () => {
  it('outside an invocation scope, parallel reads stay single GetItems', async () => {
    const { put, get, reads } = harness();
    await put('ORG#1');
    const [org, missing] = await Promise.all([get('ORG#1'), get('REQ#1')]);
    expect(org.Item).toMatchObject({ value: 'ORG#1/A' });
    expect(missing.Item).toBeUndefined();
    expect(reads().map((r) => r.command)).toEqual(['GetItemCommand', 'GetItemCommand']);
  });

  it('inside a scope, reads started together go as one strongly consistent BatchGetItem, each answered with its own item', async () => {
    const { db, put, get, reads } = harness();
    await Promise.all([put('APIKEY#h'), put('ORG#1')]);
    const [key, org, request] = await db.scope(() => Promise.all([get('APIKEY#h', { ConsistentRead: true }), get('ORG#1'), get('REQ#1')]));
    expect(key.Item).toMatchObject({ value: 'APIKEY#h/A' });
    expect(org.Item).toMatchObject({ value: 'ORG#1/A' });
    expect(request.Item).toBeUndefined();
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).toMatchObject({
      command: 'BatchGetItemCommand',
      input: { RequestItems: { t: { Keys: [{ pk: 'APIKEY#h', sk: 'A' }, { pk: 'ORG#1', sk: 'A' }, { pk: 'REQ#1', sk: 'A' }], ConsistentRead: true } } },
    });
  });

  it('batches reads started a few awaits apart, as middleware after middleware starts them', async () => {
    const { db, put, get, reads } = harness();
    await put('ORG#1');
    const [first, second] = await db.scope(async () => {
      const first = get('REQ#1');
      await Promise.resolve();
      await null;
      return Promise.all([first, get('ORG#1')]);
    });
    expect(first.Item).toBeUndefined();
    expect(second.Item).toMatchObject({ value: 'ORG#1/A' });
    expect(reads().map((r) => r.command)).toEqual(['BatchGetItemCommand']);
  });

  it('sends a read that starts alone, or after the others answered, as a GetItem', async () => {
    const { db, put, get, reads } = harness();
    await put('ORG#1');
    await db.scope(async () => {
      await get('ORG#1');
      await get('ORG#1');
    });
    expect(reads().map((r) => r.command)).toEqual(['GetItemCommand', 'GetItemCommand']);
  });

  it('asks once for an item read twice, and answers both', async () => {
    const { db, put, get, reads } = harness();
    await put('ORG#1');
    const answers = await db.scope(() => Promise.all([get('ORG#1'), get('ORG#1'), get('REQ#9')]));
    expect(answers.map((a) => a.Item?.value)).toEqual(['ORG#1/A', 'ORG#1/A', undefined]);
    expect(reads()[0]!.input.RequestItems.t.Keys).toEqual([{ pk: 'ORG#1', sk: 'A' }, { pk: 'REQ#9', sk: 'A' }]);
    expect(reads()[0]!.input.RequestItems.t.ConsistentRead).toBe(false);
  });

  it('reads the keys a batch left unprocessed one by one', async () => {
    const { db, put, get, reads } = harness({ unprocessed: (key) => key.pk === 'ORG#1' });
    await Promise.all([put('ORG#1'), put('REQ#1')]);
    const [org, request] = await db.scope(() => Promise.all([get('ORG#1'), get('REQ#1')]));
    expect(org.Item).toMatchObject({ value: 'ORG#1/A' });
    expect(request.Item).toMatchObject({ value: 'REQ#1/A' });
    expect(reads().map((r) => `${r.command} ${r.input.Key?.pk ?? ''}`.trim())).toEqual(['BatchGetItemCommand', 'GetItemCommand ORG#1']);
  });

  it("fails every read of a failed batch with the batch's error, by its name", async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    const { db, get } = harness({ failBatch: throttled });
    const answers = await db.scope(() => Promise.allSettled([get('ORG#1'), get('REQ#1')]));
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    for (const answer of answers) expect((answer as PromiseRejectedResult).reason.name).toBe('ProvisionedThroughputExceededException');
  });

  it('leaves a read with a projection alone, and splits more than 100 keys into batches of 100', async () => {
    const { db, get, reads } = harness();
    await db.scope(() => Promise.all([get('ORG#1', { ProjectionExpression: 'pk' }), ...Array.from({ length: 130 }, (_, i) => get(`REQ#${i}`))]));
    const batches = reads().filter((r) => r.command === 'BatchGetItemCommand');
    expect(batches.map((b) => b.input.RequestItems.t.Keys.length).sort()).toEqual([100, 30]);
    expect(reads().filter((r) => r.command === 'GetItemCommand').map((r) => r.input.ProjectionExpression)).toEqual(['pk']);
  });

  it('never mixes two invocations in one batch', async () => {
    const { db, get, reads } = harness();
    await Promise.all([
      db.scope(() => Promise.all([get('ORG#1'), get('REQ#1')])),
      db.scope(() => Promise.all([get('ORG#2'), get('REQ#2')])),
    ]);
    const batches = reads().map((r) => r.input.RequestItems.t.Keys.map((k: Key) => k.pk).join(','));
    expect(batches.sort()).toEqual(['ORG#1,REQ#1', 'ORG#2,REQ#2']);
  });
});
