/**
 * What DynamoDB Local itself can lose when it is killed: `npx tsx bench/engine-kill.ts`.
 *
 * Each round starts the engine on disk (as `npm start` does) and keeps a few writers busy against
 * the service's table definition (stream on); a moment in, the engine itself is signalled a set
 * delay after a write is acknowledged. It is then started again over the same files and every
 * write it had acknowledged is read back with consistent reads. A write is lost when all its items
 * are missing, torn when only some are. The printout buckets acknowledged and lost writes by how
 * long before the signal they were acknowledged. Modes: the service's audited write (a
 * TransactWriteItems moving a head and putting three items, as a create does) and a single
 * PutItem under SIGKILL, and the transaction under SIGTERM (what Ctrl-C and a restart over a
 * leftover engine send).
 *
 * ENGINE_KILL_ROUNDS (default 5) rounds per mode and delay; ENGINE_KILL_DELAYS_MS (default 0,20)
 * the delays between an acknowledgement and SIGKILL; ENGINE_KILL_WRITERS (default 4) writers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoLocal, type RunningDynamo } from '../lambdas/local/dynamodb-local.ts';
import { ensureTable } from '../lambdas/local/table-bootstrap.ts';
import { newId } from '../lambdas/core/ids.ts';
import { createDocumentClient, type Documents } from '../lambdas/store/dynamo.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROUNDS = Number(process.env.ENGINE_KILL_ROUNDS ?? 5);
const WRITERS = Number(process.env.ENGINE_KILL_WRITERS ?? 4);
const DELAYS_MS = (process.env.ENGINE_KILL_DELAYS_MS ?? '0,20').split(',').map(Number);
/** A fresh engine answers its first writes slowly (the JVM warming up): the signal waits for these first. */
const WARM_UP_WRITES = 50;
/** Then the writers run this long, so the engine is mid-stream when the signal comes. */
const WRITING_MS = 300;
const TABLE = 'engine-kill';
/** Upper bounds (ms) of the age buckets: how long before the signal a write was acknowledged. */
const BUCKETS = [5, 20, 50, 100, 250, Infinity];

type Kind = 'transaction' | 'put';
interface Mode {
  kind: Kind;
  signal: NodeJS.Signals;
  /** Between an acknowledgement and the signal. */
  delayMs: number;
}
const MODES: Mode[] = [
  ...DELAYS_MS.flatMap((delayMs): Mode[] => [
    { kind: 'transaction', signal: 'SIGKILL', delayMs },
    { kind: 'put', signal: 'SIGKILL', delayMs },
  ]),
  { kind: 'transaction', signal: 'SIGTERM', delayMs: 0 },
];

/** The items one write puts: the transaction's head and three items, or the put's one item. */
const itemsOf = (kind: Kind, id: string) =>
  kind === 'put'
    ? [{ pk: `KILLPUT#${id}`, sk: 'ITEM' }]
    : [
        { pk: `KILLTX#${id}`, sk: 'HEAD' },
        { pk: `KILLTX#${id}`, sk: 'SEQ#1' },
        { pk: `KILLREQ#${id}`, sk: 'REQ' },
        { pk: `KILLLINK#${id}`, sk: 'LINK' },
      ];

const write = (db: Documents, kind: Kind, id: string) => {
  const [head, ...puts] = itemsOf(kind, id);
  if (kind === 'put') return db.send(new PutCommand({ TableName: TABLE, Item: { ...head, payload: 'x'.repeat(200) } }));
  return db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: TABLE, Key: head, UpdateExpression: 'SET n = :n', ConditionExpression: 'attribute_not_exists(n)', ExpressionAttributeValues: { ':n': 1 } } },
        ...puts.map((key) => ({ Put: { TableName: TABLE, Item: { ...key, payload: 'x'.repeat(200) }, ConditionExpression: 'attribute_not_exists(pk)' } })),
      ],
    }),
  );
};

const exited = (dynamo: RunningDynamo) =>
  dynamo.process.exitCode !== null || dynamo.process.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((done) => dynamo.process.once('exit', () => done()));

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Ack {
  id: string;
  at: number;
}

interface RoundResult {
  acked: Ack[];
  signalledAt: number;
  lost: Ack[];
  torn: Ack[];
}

/** The table is made once, under an engine stopped gracefully, so no round can lose the table itself. */
const prepare = async (dbPath: string) => {
  const dynamo = await startDynamoLocal({ dataDir: dbPath });
  const db = createDocumentClient({ endpoint: dynamo.endpoint });
  await ensureTable(db, TABLE);
  db.destroy();
  await dynamo.stop();
};

const round = async (dbPath: string, mode: Mode): Promise<RoundResult> => {
  const dynamo = await startDynamoLocal({ dataDir: dbPath });
  // No retries: a write the signal interrupted must fail, not be sent to the next engine.
  const db = createDocumentClient({ endpoint: dynamo.endpoint, maxAttempts: 1 });
  const acked: Ack[] = [];
  let signalledAt = 0;
  let failure: unknown;
  let armed: (() => void) | null = null;
  const signal = () => {
    signalledAt = performance.now();
    process.kill(dynamo.process.pid!, mode.signal);
  };
  const writers = Array.from({ length: WRITERS }, async () => {
    while (!signalledAt) {
      const id = newId();
      try {
        await write(db, mode.kind, id);
      } catch (error) {
        if (!signalledAt) failure ??= error;
        return;
      }
      if (signalledAt) return;
      acked.push({ id, at: performance.now() });
      // The signal follows this acknowledgement by the mode's delay (at once for 0).
      const fire = armed;
      armed = null;
      if (fire) fire();
    }
  });
  while (acked.length < WARM_UP_WRITES && !failure) await pause(10);
  await pause(WRITING_MS);
  if (failure) throw failure;
  const writing = Promise.all(writers);
  const fired = new Promise<void>((done) => {
    armed = () => {
      if (mode.delayMs === 0) signal();
      else setTimeout(signal, mode.delayMs);
      done();
    };
  });
  await Promise.race([fired, writing.then(() => Promise.reject(failure ?? new Error('the writers stopped before the signal')))]);
  while (!signalledAt) await pause(1);
  await writing;
  await exited(dynamo);
  db.destroy();

  const again = await startDynamoLocal({ dataDir: dbPath });
  const reader = createDocumentClient({ endpoint: again.endpoint });
  const lost: Ack[] = [];
  const torn: Ack[] = [];
  for (const ack of acked) {
    const found = await Promise.all(
      itemsOf(mode.kind, ack.id).map(async (key) => Boolean((await reader.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item)),
    );
    if (found.every((present) => !present)) lost.push(ack);
    else if (!found.every(Boolean)) torn.push(ack);
  }
  reader.destroy();
  await again.stop();
  return { acked, signalledAt, lost, torn };
};

const bucketOf = (ageMs: number) => BUCKETS.findIndex((bound) => ageMs < bound);
const bucketName = (i: number) => (BUCKETS[i] === Infinity ? `>=${BUCKETS[i - 1]} ms` : `<${BUCKETS[i]} ms`);

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'engine-kill-'));
  try {
    const lines: string[] = [];
    for (const mode of MODES) {
      const name = `${mode.kind} + ${mode.signal} ${mode.delayMs} ms after an acknowledgement`;
      const dbPath = join(dir, `${mode.kind}-${mode.signal}-${mode.delayMs}`);
      const acked = BUCKETS.map(() => 0);
      const lost = BUCKETS.map(() => 0);
      let roundsWithLoss = 0;
      let torn = 0;
      let oldestLost = 0;
      await prepare(dbPath);
      for (let i = 0; i < ROUNDS; i++) {
        const result = await round(dbPath, mode);
        for (const ack of result.acked) acked[bucketOf(result.signalledAt - ack.at)]++;
        for (const ack of result.lost) {
          const age = result.signalledAt - ack.at;
          lost[bucketOf(age)]++;
          oldestLost = Math.max(oldestLost, age);
        }
        torn += result.torn.length;
        if (result.lost.length + result.torn.length > 0) roundsWithLoss++;
        const ages = result.lost.map((ack) => (result.signalledAt - ack.at).toFixed(1)).join(', ');
        process.stderr.write(`${name}, round ${i + 1}: ${result.acked.length} acknowledged, ${result.lost.length} lost${ages ? ` (acknowledged ${ages} ms before)` : ''}, ${result.torn.length} torn\n`);
      }
      const totalLost = lost.reduce((a, b) => a + b, 0);
      lines.push(
        `${name}: a loss in ${roundsWithLoss} of ${ROUNDS} rounds; ${totalLost} of ${acked.reduce((a, b) => a + b, 0)} acknowledged writes lost` +
          (totalLost ? ` (the oldest acknowledged ${oldestLost.toFixed(1)} ms before the signal)` : '') +
          `, ${torn} torn`,
        `  lost/acknowledged by age at the signal: ${BUCKETS.map((_, b) => `${bucketName(b)} ${lost[b]}/${acked[b]}`).join(', ')}`,
      );
    }
    process.stdout.write(`\nDynamoDB Local signalled ${ROUNDS} times per mode, ${WRITERS} writers, stream on:\n${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

await main();
