/**
 * What a replay carries whatever answer was kept: the transport headers, `Cache-Control: no-store` (an answer stored
 * before every answer carried it still replays for 24 hours), the call's own rate-limit headers and
 * `Idempotency-Replayed`.
 */
import { describe, expect, it, vi } from 'vitest';
import { idempotency } from '../../lambdas/http/middleware/idempotency.ts';
import { TRANSPORT_HEADERS } from '../../lambdas/http/responses.ts';

const call = () =>
  ({
    event: { requestContext: { http: { method: 'POST' } }, rawPath: '/v1/requests', headers: { 'idempotency-key': 'key-1' } },
    internal: { caller: { apiKey: { id: 'api-key-1' } }, body: { a: 1 }, rateHeaders: { 'X-RateLimit-Remaining': '41' } },
  }) as any;

const keptAnswer = (headers: Record<string, string>) => ({
  start: vi.fn(async () => ({ outcome: 'replay' as const, response: { statusCode: 201, headers, body: '{"id":"r1"}' } })),
  finish: vi.fn(async () => undefined),
  release: vi.fn(async () => undefined),
});

describe('a replayed answer', () => {
  it('is never stored by a cache, even when the kept answer named no Cache-Control', async () => {
    const replay = await idempotency(keptAnswer({ 'Content-Type': 'application/json', Location: '/v1/requests/r1' })).before!(call());
    expect(replay).toMatchObject({ statusCode: 201, body: '{"id":"r1"}' });
    expect(replay!.headers).toEqual({
      'Content-Type': 'application/json',
      Location: '/v1/requests/r1',
      ...TRANSPORT_HEADERS,
      'Cache-Control': 'no-store',
      'X-RateLimit-Remaining': '41',
      'Idempotency-Replayed': 'true',
    });
  });

  it('carries the transport headers every other answer carries (HSTS, nosniff), though it leaves before they are added', async () => {
    const replay = await idempotency(keptAnswer({ 'Content-Type': 'application/json' })).before!(call());
    expect(replay!.headers).toMatchObject(TRANSPORT_HEADERS);
  });
});
