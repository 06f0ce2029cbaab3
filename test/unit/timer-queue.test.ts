import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isNewAuditItem } from '../../lambdas/local/stream-poller.ts';
import { TimerQueue } from '../../lambdas/local/timer-queue.ts';
import { DELIVERY_BATCH_SIZE } from '../../lambdas/core/delivery-lanes.ts';

afterEach(() => vi.useRealTimers());

describe('TimerQueue', () => {
  it('calls the delivery worker with an SQS-shaped event after the delay, and again later when the record failed', async () => {
    vi.useFakeTimers();
    const events: SQSEvent[] = [];
    let fail = true;
    const queue = new TimerQueue({
      deliver: async (event) => {
        events.push(event);
        const failures = fail ? [{ itemIdentifier: event.Records[0]!.messageId }] : [];
        fail = false;
        return { batchItemFailures: failures };
      },
      redeliverAfterMs: 5_000,
    });
    await queue.send('01hdelivery000000000000001', 60);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(events).toHaveLength(0);
    // Due at 60 s, handed over on the lane's next zero timer (a fake clock runs it a millisecond on).
    await vi.advanceTimersByTimeAsync(2);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.Records[0]!.body)).toEqual({ deliveryId: '01hdelivery000000000000001', lane: 'fast' });
    expect(events[0]!.Records[0]!.eventSource).toBe('aws:sqs');
    await vi.advanceTimersByTimeAsync(5_002);
    expect(events).toHaveLength(2);
    expect(events[1]!.Records[0]!.attributes.ApproximateReceiveCount).toBe('2');
    await queue.stop();
  });

  it('makes at most maxInFlight worker calls at once; the messages beyond wait their turn', async () => {
    const releases: Array<() => void> = [];
    const started: string[] = [];
    const queue = new TimerQueue({
      deliver: (event) =>
        new Promise((done) => {
          started.push(JSON.parse(event.Records[0]!.body).deliveryId);
          releases.push(() => done({ batchItemFailures: [] }));
        }),
      maxInFlight: 2,
    });
    for (const id of ['d1', 'd2', 'd3', 'd4']) await queue.send(id, 0);
    await vi.waitFor(() => expect(started).toEqual(['d1', 'd2']));
    releases.shift()!();
    await vi.waitFor(() => expect(started).toEqual(['d1', 'd2', 'd3']));
    releases.shift()!();
    releases.shift()!();
    await vi.waitFor(() => expect(started).toEqual(['d1', 'd2', 'd3', 'd4']));
    releases.shift()!();
    await queue.stop();
  });

  it('sends nothing after stop', async () => {
    vi.useFakeTimers();
    const deliver = vi.fn(async () => ({ batchItemFailures: [] }));
    const queue = new TimerQueue({ deliver });
    await queue.send('01hdelivery000000000000001', 1);
    await queue.stop();
    await queue.send('01hdelivery000000000000002', 0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(deliver).not.toHaveBeenCalled();
  });
});

describe('TimerQueue lanes and groups', () => {
  /**
   * A worker whose calls stay open until released; records what started, by delivery id and lane,
   * and each call's batch. Releasing any delivery of a batch ends its call (the worker answers for
   * the batch).
   */
  const heldWorker = () => {
    const started: Array<{ id: string; lane: string; group: string | undefined }> = [];
    const batches: string[][] = [];
    const releases = new Map<string, () => void>();
    const deliver = (event: SQSEvent) =>
      new Promise<{ batchItemFailures: [] }>((done) => {
        const ids: string[] = [];
        for (const record of event.Records) {
          const { deliveryId, lane } = JSON.parse(record.body);
          started.push({ id: deliveryId, lane, group: (record.attributes as unknown as Record<string, string>).MessageGroupId });
          releases.set(deliveryId, () => done({ batchItemFailures: [] }));
          ids.push(deliveryId);
        }
        batches.push(ids);
      });
    /** Stops the queue, letting every call still open end. */
    const stop = async (queue: TimerQueue) => {
      const stopping = queue.stop();
      for (const release of releases.values()) release();
      await stopping;
    };
    return { started, batches, releases, deliver, stop };
  };

  it('runs each lane on workers of its own: a full slow lane leaves the fast lane free', async () => {
    const { started, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 2, maxInFlightUnproven: 2 });
    for (const id of ['s1', 's2', 's3']) await queue.send(id, 0, { lane: 'slow', group: `slow-${id}` });
    await queue.send('f1', 0, { lane: 'fast', group: 'healthy' });
    await vi.waitFor(() => expect(started.map((s) => `${s.lane}:${s.id}`).sort()).toEqual(['fast:f1', 'slow:s1', 'slow:s2']));
    await stop(queue);
  });

  it("serves groups in turn: one subscription's backlog does not stand in front of another's message", async () => {
    const { started, releases, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 1, maxInFlightUnproven: 1 });
    for (let i = 1; i <= 5; i++) await queue.send(`b${i}`, 0, { lane: 'fast', group: 'backlog' });
    await queue.send('q1', 0, { lane: 'fast', group: 'quiet' });
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['b1']));
    releases.get('b1')!();
    // The quiet group's message is next, ahead of the backlog's other four.
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['b1', 'q1']));
    expect(started[1]!.group).toBe('quiet');
    releases.get('q1')!();
    // Then the backlog's rest, which answered quickly: in one call, as SQS hands a backed-up queue's messages.
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['b1', 'q1', 'b2', 'b3', 'b4', 'b5']));
    await stop(queue);
  });

  it('holds a group not yet seen answering quickly to maxInFlightUnproven, and lets a quick one use the lane', async () => {
    const { started, releases, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 8, maxInFlightUnproven: 2 });
    for (let i = 1; i <= 6; i++) await queue.send(`h${i}`, 0, { lane: 'fast', group: 'hanging' });
    for (let i = 1; i <= 6; i++) await queue.send(`q${i}`, 0, { lane: 'fast', group: 'quick' });
    // Both start unproven: two each.
    await vi.waitFor(() => expect(started.map((s) => s.id).sort()).toEqual(['h1', 'h2', 'q1', 'q2']));
    await new Promise((done) => setTimeout(done, 20));
    expect(started).toHaveLength(4);
    // The quick group answers at once and may then use the rest of the lane; the hanging one may not.
    releases.get('q1')!();
    await vi.waitFor(() => expect(started.filter((s) => s.group === 'quick').length).toBe(6));
    expect(started.filter((s) => s.group === 'hanging').map((s) => s.id)).toEqual(['h1', 'h2']);
    await stop(queue);
  });
  it('keeps a worker for a group that answered, however many new or hanging groups are due before it', async () => {
    const { started, releases, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 4, maxInFlightUnproven: 2 });
    // The healthy subscription's batch ends well within the fast lane's budget, if not quickly (a busy table).
    await queue.send('ok1', 0, { lane: 'fast', group: 'healthy' });
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['ok1']));
    await new Promise((done) => setTimeout(done, 700));
    releases.get('ok1')!();
    await new Promise((done) => setTimeout(done, 20));
    // Then as many new subscriptions as the lane has workers, none answering, fall due with its next delivery.
    await Promise.all([...Array.from({ length: 8 }, (_, i) => queue.send(`new${i}`, 0, { lane: 'fast', group: `new-${i}` })), queue.send('ok2', 0, { lane: 'fast', group: 'healthy' })]);
    await vi.waitFor(() => expect(started.map((s) => s.id)).toContain('ok2'), { timeout: 500 });
    expect(started.filter((s) => s.group?.startsWith('new-')).length).toBe(3);
    await stop(queue);
  });

  it('keeps no workers back in the slow lane, where every receiver ran into the fast lane\'s budget', async () => {
    const { started, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 4, maxInFlightUnproven: 2 });
    for (let i = 0; i < 8; i++) await queue.send(`s${i}`, 0, { lane: 'slow', group: `slow-${i}` });
    await vi.waitFor(() => expect(started.length).toBe(4));
    await new Promise((done) => setTimeout(done, 20));
    expect(started).toHaveLength(4);
    await stop(queue);
  });

  it('hands a group its due messages in batches of at most DELIVERY_BATCH_SIZE, never mixing groups', async () => {
    const { batches, releases, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 16, maxInFlightUnproven: 16 });
    const backlog = Array.from({ length: 13 }, (_, i) => `a${i + 1}`);
    // Sent from one turn, as the fan-out sends a transaction's deliveries: due together.
    await Promise.all([...backlog.map((id) => queue.send(id, 0, { lane: 'fast', group: 'a' })), queue.send('b1', 0, { lane: 'fast', group: 'b' })]);
    await vi.waitFor(() => expect(batches.flat()).toHaveLength(14));
    expect(batches.every((batch) => batch.length <= DELIVERY_BATCH_SIZE)).toBe(true);
    expect(batches.every((batch) => batch.every((id) => id.startsWith('a')) || batch.every((id) => id.startsWith('b')))).toBe(true);
    expect(batches.filter((batch) => batch[0]!.startsWith('a')).map((batch) => batch.length).sort((x, y) => x - y)).toEqual([3, 10]);
    for (const id of backlog) releases.get(id)!();
    await stop(queue);
  });

  it('hands a failed record of a batch over again alone, the batch its other records were in finished', async () => {
    vi.useFakeTimers();
    const calls: string[][] = [];
    const queue = new TimerQueue({
      deliver: async (event) => {
        calls.push(event.Records.map((record) => JSON.parse(record.body).deliveryId));
        return { batchItemFailures: event.Records.filter((record) => JSON.parse(record.body).deliveryId === 'x2' && calls.length === 1).map((record) => ({ itemIdentifier: record.messageId })) };
      },
      redeliverAfterMs: 1_000,
      maxInFlightUnproven: 3,
    });
    await Promise.all(['x1', 'x2', 'x3'].map((id) => queue.send(id, 0, { lane: 'fast', group: 'g' })));
    await vi.advanceTimersByTimeAsync(2);
    expect(calls).toEqual([['x1', 'x2', 'x3']]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toEqual([['x1', 'x2', 'x3'], ['x2']]);
    await queue.stop();
  });

  it('keeps one waiting message per delivery: a second send while one waits is dropped, a send once it runs is kept', async () => {
    const { started, releases, deliver, stop } = heldWorker();
    const queue = new TimerQueue({ deliver, maxInFlight: 1, maxInFlightUnproven: 1 });
    await queue.send('busy', 0, { lane: 'fast', group: 'g1' });
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['busy']));
    // 'd1' waits behind 'busy'; the sweep's copy of it (and a copy for the slow lane) are dropped.
    await queue.send('d1', 0, { lane: 'fast', group: 'g2' });
    await new Promise((done) => setTimeout(done, 10));
    await queue.send('d1', 0, { lane: 'fast', group: 'g2' });
    await queue.send('d1', 0, { lane: 'slow', group: 'g2' });
    // 'busy' is with the worker, so a message for it (its retry, a hop) waits as usual.
    await queue.send('busy', 0, { lane: 'fast', group: 'g1' });
    releases.get('busy')!();
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['busy', 'd1']));
    releases.get('d1')!();
    await vi.waitFor(() => expect(started.map((s) => s.id)).toEqual(['busy', 'd1', 'busy']));
    await new Promise((done) => setTimeout(done, 20));
    expect(started).toHaveLength(3);
    await stop(queue);
  });
});

describe('stream poller filter', () => {
  it('passes new audit entries only, by their keys, as the deployed filter does', () => {
    const keys = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: { Keys: keys('AUDIT#o1', 'SEQ#000000000001') } })).toBe(true);
    expect(isNewAuditItem({ eventName: 'MODIFY', dynamodb: { Keys: keys('AUDIT#o1', 'SEQ#000000000001') } })).toBe(false);
    // The chain's head is inserted with the first entry: not an entry.
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: { Keys: keys('AUDIT#o1', 'HEAD') } })).toBe(false);
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: { Keys: keys('REQ#r1', 'MATERIAL#envelope') } })).toBe(false);
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: {} })).toBe(false);
  });
});
