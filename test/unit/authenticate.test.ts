import { describe, expect, it } from 'vitest';
import { apiKeyHash, newApiKeySecret } from '../../lambdas/core/api-key-format.ts';
import type { ApiError } from '../../lambdas/core/errors.ts';
import type { ApiKey, Organisation } from '../../lambdas/core/model.ts';
import { authenticate } from '../../lambdas/http/middleware/authenticate.ts';
import type { ApiRequest } from '../../lambdas/http/types.ts';

/** Table reads that resolve only when the test says, recording the order they started in. */
const NOW = '2026-06-01T00:00:00.000Z';

/** `lastUsedAt`: the key's recorded last use (null: none); by default a minute before NOW, so no use is written. */
const harness = (lastUsedAt: string | null = '2026-05-31T23:59:00.000Z') => {
  const secret = newApiKeySecret();
  const key: ApiKey = {
    id: 'key1', orgId: 'org1', name: 'k', prefix: secret.slice(0, 15), hash: apiKeyHash(secret), scopes: ['requests:read'],
    clientId: null, allowlist: [], expiresAt: null, revokedAt: null, createdAt: '2026-01-01T00:00:00Z', ...(lastUsedAt ? { lastUsedAt } : {}),
  };
  const uses: Array<{ hash: string; at: string; staleBefore: string }> = [];
  const started: string[] = [];
  const pending: Array<() => void> = [];
  const later = <T>(name: string, value: () => T) => {
    started.push(name);
    return new Promise<T>((resolve) => pending.push(() => resolve(value())));
  };
  const middleware = authenticate({
    apiKeys: {
      findByHash: () => later('key', () => ({ ...key })),
      noteUse: (hash: string, at: string, staleBefore: string) => later('use', () => void uses.push({ hash, at, staleBefore })),
    } as never,
    directory: { getOrganisation: () => later('org', () => ({ id: 'org1', plan: 'team' }) as Organisation) } as never,
    rateLimiter: {
      count: () => {
        const counted = later('count', () => undefined);
        return { judge: async () => (await counted, { allowed: true, limit: 600, remaining: 599, resetAt: 60, retryAfterSeconds: 60 }), release: () => counted };
      },
    },
    clock: { now: () => new Date(NOW) },
  });
  /** A call with the key, or with these headers instead. */
  const call = async (headers: Record<string, string> = { authorization: `Bearer ${secret}` }) => {
    const request = { event: { headers }, internal: {} } as unknown as ApiRequest;
    const done = Promise.resolve(middleware.before!(request));
    done.catch(() => undefined); // a refusal is awaited below, after the reads are answered
    // Let every read the call starts get going, then answer them all, as often as it takes.
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      pending.splice(0).forEach((resolve) => resolve());
    }
    await done;
    return request;
  };
  return { key, secret, started, uses, call };
};

describe('authenticate', () => {
  it('reads the key first for a key it has not seen, then the count and the organisation', async () => {
    const { started, call } = harness();
    const request = await call();
    expect(started).toEqual(['key', 'count', 'org']);
    expect(request.internal.caller?.apiKey.id).toBe('key1');
  });

  it('starts the count and the organisation read beside the key read for a key it has seen', async () => {
    const { started, call } = harness();
    await call();
    started.length = 0;
    const request = await call();
    expect(started).toEqual(['count', 'org', 'key']);
    expect(request.internal.caller?.org.id).toBe('org1');
  });

  it("records the key's use beside the organisation read when the last one recorded is an hour old, or none is", async () => {
    for (const lastUsedAt of [null, '2026-05-31T22:59:59.999Z']) {
      const { key, started, uses, call } = harness(lastUsedAt);
      await call();
      expect(started).toEqual(['key', 'use', 'count', 'org']);
      expect(uses).toEqual([{ hash: key.hash, at: NOW, staleBefore: '2026-05-31T23:00:00.000Z' }]);
    }
  });

  it('writes nothing when a use within the hour is recorded', async () => {
    const { started, uses, call } = harness('2026-05-31T23:00:00.000Z');
    await call();
    expect(started).toEqual(['key', 'count', 'org']);
    expect(uses).toEqual([]);
  });

  it('refuses with the challenge RFC 9110 requires of a 401, in RFC 6750\u2019s words for why', async () => {
    const { secret, call } = harness();
    const unknown = newApiKeySecret();
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'Bearer realm="api"'],
      [{ authorization: `Basic ${secret}` }, 'Bearer realm="api"'],
      [{ authorization: `Bearer ${secret},Bearer ${secret}` }, 'Bearer realm="api", error="invalid_request"'],
      [{ authorization: 'Bearer' }, 'Bearer realm="api", error="invalid_request"'],
      [{ authorization: 'Bearer nonsense' }, 'Bearer realm="api", error="invalid_token"'],
      [{ authorization: `Bearer ${unknown}` }, 'Bearer realm="api", error="invalid_token"'],
    ];
    for (const [headers, challenge] of cases) {
      const refusal = await call(headers).then(() => null, (error: ApiError) => error);
      expect(refusal, JSON.stringify(headers)).toMatchObject({ status: 401, code: 'unauthenticated', headers: { 'WWW-Authenticate': challenge } });
    }
  });
});
