/**
 * At-least-once across a crash: `npm start` killed outright (SIGKILL) while webhook deliveries
 * are pending, some mid-attempt and some not yet read off the stream, then started again over the
 * same data. Every event in the feed must reach the receiver, verified, and none may be lost.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { joinRunningEngine } from '../../lambdas/local/engine-access.ts';
import { stopOrphanedDynamo } from '../../lambdas/local/orphaned-dynamo.ts';
import type { LocalRuntime } from '../../lambdas/local/runtime-file.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, type Documents } from '../../lambdas/store/dynamo.ts';
import { dueSort } from '../../lambdas/store/delivery-keys.ts';
import { portAnswers, startLocalProcess, stopProcess, waitFor, type LocalProcess } from '../support/local-process.ts';
import { startReceiver } from '../support/receiver.ts';
import { scanTable } from '../support/test-service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'handoff-restart-'));
const running: ChildProcess[] = [];
let closeReceiver: () => Promise<void> = async () => undefined;

afterAll(async () => {
  for (const child of running) await stopProcess(child, 'SIGKILL');
  // A run that failed midway killed its service outright: stop the DynamoDB Local it left.
  await stopOrphanedDynamo(dataDir);
  await closeReceiver();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (service: LocalProcess) => async (method: string, path: string, body?: unknown) => {
  const answer = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${service.key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await answer.text();
  return { status: answer.status, text, body: text ? JSON.parse(text) : null };
};

const createRequests = async (call: ReturnType<typeof api>, count: number) => {
  for (let i = 0; i < count; i++) {
    const created = await call('POST', '/requests', { subject_name: `Subject ${i}`, preset: 'standard' });
    expect(created.status, created.text).toBe(201);
  }
};

/** The running service's runtime file; this process's clients then use the engine's access key, as the CLI does. */
const readRuntime = (): LocalRuntime => {
  joinRunningEngine(join(dataDir, 'dynamodb'));
  return JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
};

/** Every webhook delivery record in the service's table. */
const deliveriesIn = async (db: Documents, tableName: string) =>
  (await scanTable({ deps: { db, tableName } as never })).filter((item) => item.kind === 'webhook_delivery');

/**
 * Makes every delivery claimed for an attempt (attempts above zero, still pending) due now, as it
 * would be once its one-minute retry delay had passed: what a restart a minute later would find.
 * Returns how many it moved.
 */
const rewindClaimedDeliveries = async (dynamoEndpoint: string) => {
  const { tableName } = readRuntime();
  const db = createDocumentClient({ endpoint: dynamoEndpoint });
  try {
    const claimed = (await deliveriesIn(db, tableName)).filter((item) => item.status === 'pending' && Number(item.attempts) > 0);
    const now = new Date().toISOString();
    for (const delivery of claimed) {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: delivery.pk, sk: delivery.sk },
          UpdateExpression: 'SET nextAttemptAt = :now, gsi6sk = :due',
          ExpressionAttributeValues: { ':now': now, ':due': dueSort(now, delivery.id as string) },
        }),
      );
    }
    return claimed.length;
  } finally {
    db.destroy();
  }
};

describe('npm start killed with SIGKILL while deliveries are pending', () => {
  it('delivers every event at least once after a restart: the feed and the receiver hold the same event ids', async () => {
    let secret = '';
    let crashed = false;
    let answeredBeforeCrash = 0;
    // Before the crash the receiver answers two deliveries and keeps the rest waiting, so they are
    // mid-attempt when the process dies; after it, it answers everything at once.
    const receiver = await startReceiver({
      secret: () => secret,
      answer: () => (crashed || answeredBeforeCrash++ < 2 ? 204 : 'hang'),
    });
    closeReceiver = receiver.close;

    const first = await startLocalProcess(dataDir, running);
    const firstCall = api(first);
    const subscribed = await firstCall('POST', '/webhooks', { url: `${receiver.url}/hook`, events: ['request.created'] });
    expect(subscribed.status, subscribed.text).toBe(201);
    secret = subscribed.body.secret;

    await createRequests(firstCall, 6);
    await waitFor(() => (receiver.receipts.length >= 4 ? true : undefined), 30_000, 'the first deliveries');
    // These are committed just before the kill: most are still unread on the stream.
    await createRequests(firstCall, 4);
    const { dynamoPid, dynamoEndpoint } = readRuntime();
    expect(await stopProcess(first.child, 'SIGKILL')).toBeNull();
    crashed = true;
    expect(receiver.delivered().size).toBeLessThan(10);
    // Killed outright, the service could not stop its DynamoDB Local: the restart has to.
    expect(dynamoPid).toEqual(expect.any(Number));
    expect(await portAnswers(Number(new URL(dynamoEndpoint).port))).toBe(true);

    // The deliveries that were mid-attempt are due again a minute after their claim (their retry
    // delay): the service is down for that minute, so to speak. Their next attempt moves to now.
    const rewound = await rewindClaimedDeliveries(dynamoEndpoint);
    expect(rewound).toBeGreaterThan(0);

    const second = await startLocalProcess(dataDir, running);
    expect(second.output()).toContain(`Stopped the DynamoDB Local (process ${dynamoPid})`);
    expect(await portAnswers(Number(new URL(dynamoEndpoint).port))).toBe(false);

    const feed = await api(second)('GET', '/events?types=request.created&limit=200');
    expect(feed.status, feed.text).toBe(200);
    const feedIds = (feed.body.data as Array<{ id: string }>).map((event) => event.id).sort();
    expect(feedIds).toHaveLength(10);

    await waitFor(() => (feedIds.every((id) => receiver.delivered().has(id)) ? true : undefined), 60_000, 'every event at the receiver');
    expect([...receiver.delivered()].sort()).toEqual(feedIds);
    for (const id of feedIds) {
      // Retries of one delivery keep its webhook-id.
      const messageIds = new Set(receiver.receipts.filter((r) => r.eventId === id).map((r) => r.headers['webhook-id']));
      expect(messageIds.size, id).toBe(1);
    }
    expect(receiver.receipts.every((r) => r.eventId !== null)).toBe(true);

    // One delivery per event in the table, each delivered.
    const runtime = readRuntime();
    const db = createDocumentClient({ endpoint: runtime.dynamoEndpoint });
    const deliveryRecords = () => deliveriesIn(db, runtime.tableName);
    // The receiver notes a delivery as it arrives; its record says delivered once the 200 is back at the worker.
    await waitFor(async () => ((await deliveryRecords()).every((d) => d.status === 'delivered') ? true : undefined), 30_000, 'every delivery recorded as delivered');
    const deliveries = await deliveryRecords();
    db.destroy();
    expect(deliveries).toHaveLength(10);
    expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);

    expect(await stopProcess(second.child, 'SIGINT')).toBe(0);
  }, 300_000);
});
