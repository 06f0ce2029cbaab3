import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isNewAuditItem } from '../../lambdas/local/stream-poller.ts';
import { TimerQueue } from '../../lambdas/local/timer-queue.ts';

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
    await vi.advanceTimersByTimeAsync(1);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.Records[0]!.body)).toEqual({ deliveryId: '01hdelivery000000000000001' });
    expect(events[0]!.Records[0]!.eventSource).toBe('aws:sqs');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(events).toHaveLength(2);
    expect(events[1]!.Records[0]!.attributes.ApproximateReceiveCount).toBe('2');
    await queue.stop();
  });

  it('works on at most maxInFlight messages at once; the others wait their turn', async () => {
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

describe('stream poller filter', () => {
  it('passes new audit items only, as the deployed filter does', () => {
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: { NewImage: { kind: { S: 'audit' } } } })).toBe(true);
    expect(isNewAuditItem({ eventName: 'MODIFY', dynamodb: { NewImage: { kind: { S: 'audit' } } } })).toBe(false);
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: { NewImage: { kind: { S: 'request' } } } })).toBe(false);
    expect(isNewAuditItem({ eventName: 'INSERT', dynamodb: {} })).toBe(false);
  });
});
