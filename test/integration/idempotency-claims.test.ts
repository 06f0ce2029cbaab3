/**
 * An Idempotency-Key's record belongs to the call that holds its claim. A call that runs past its
 * lock time loses the key to a retry; when it ends, it must not overwrite the retry's answer (the
 * retry may have made the change) nor delete the retry's claim. Against the test's table in
 * DynamoDB Local, as two function instances would meet on it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { DynamoIdempotency } from '../../lambdas/store/idempotency.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

const clock = new FakeClock(Date.parse('2026-11-27T10:00:00Z'));
let service: TestService;
let store: DynamoIdempotency;
beforeAll(async () => {
  service = await startTestService({ clock });
  store = new DynamoIdempotency(service.deps.db, service.deps.tableName, clock);
});
afterAll(() => service?.stop());

const answer = (statusCode: number) => ({ statusCode, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ statusCode }) });

/** Call A claims the key, runs past its lock time, and retry B takes the key over. */
const overtaken = async () => {
  const owner = `key-${newId()}`;
  const key = `retry-${newId()}`;
  const first = await store.start(owner, key, 'fingerprint');
  expect(first.outcome).toBe('started');
  clock.advance(31_000);
  const retry = await store.start(owner, key, 'fingerprint');
  expect(retry.outcome).toBe('started');
  if (first.outcome !== 'started' || retry.outcome !== 'started') throw new Error('not started');
  return { owner, key, first: first.claim, retry: retry.claim };
};

it("a call that lost its key to a retry does not overwrite the retry's answer when it ends", async () => {
  const { owner, key, first, retry } = await overtaken();
  await store.finish(retry, answer(201));
  await store.finish(first, answer(409));
  const replay = await store.start(owner, key, 'fingerprint');
  expect(replay).toEqual({ outcome: 'replay', response: answer(201) });
});

it("a call that lost its key to a retry does not release the retry's claim on a 5xx", async () => {
  const { owner, key, first } = await overtaken();
  await store.release(first);
  // The retry still holds the key: a third attempt is told it is being processed.
  expect((await store.start(owner, key, 'fingerprint')).outcome).toBe('in_progress');
});
