import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { keyCounter } from '../../lambdas/store/rate-limiter.ts';
import { rateTableNameOf } from '../../lambdas/store/table.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * SPEC.md Limits: 600 calls per key and 1,200 per organisation per minute, X-RateLimit-* headers
 * on every answer of an authenticated call, 429 `rate_limited` with Retry-After past the limit.
 *
 * The service counts fixed one-minute windows on its clock, so the tests run on a fake clock set
 * to the middle of a minute: a window boundary can never fall inside a test by accident, and the
 * clock is moved past the window on purpose to show the limit resets.
 */

/** The start of the current real minute, so items' TTLs stay in the future. */
const MINUTE = Math.floor(Date.now() / 60_000) * 60_000;
const clock = new FakeClock(MINUTE + 30_000);
/** Unix seconds at which the window holding `ms` ends. */
const windowEnd = (ms: number) => Math.floor(ms / 60_000) * 60 + 60;

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ clock });
});
afterAll(() => service?.stop());
beforeEach(() => clock.set(MINUTE + 30_000));

const subject = (org: TestOrganisation, extra: Record<string, unknown> = {}) => ({
  subject_name: 'Rita Ratelimit',
  justification: 'Rate-limit test needs a request',
  recipients: [org.owner.email],
  ...extra,
});

/** The three rate headers, read as integers; the test fails when one is missing or not an integer. */
const rateHeaders = (answer: ApiAnswer) => {
  const read = (name: string) => {
    const value = answer.headers.get(name);
    expect(value, `${name} on a ${answer.status} answer`).toMatch(/^[0-9]+$/);
    return Number(value);
  };
  return { limit: read('X-RateLimit-Limit'), remaining: read('X-RateLimit-Remaining'), reset: read('X-RateLimit-Reset') };
};

const ping = (key: string) => service.call('GET', '/ping', { key });

const expectRateLimited = (answer: ApiAnswer, retryAfter: number) => {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({ message: expect.any(String), code: 'rate_limited' });
  expect(answer.headers.get('Retry-After')).toBe(String(retryAfter));
  expect(rateHeaders(answer).remaining).toBe(0);
};

describe('defaults', () => {
  it('a fresh organisation gets 600 calls per key and 1,200 per organisation', async () => {
    const org = await service.createOrganisation();
    const stored = await service.admin.directory.getOrganisation(org.orgId);
    expect(stored?.rateLimits).toEqual({ perKeyPerMinute: 600, perOrgPerMinute: 1200 });

    const answer = await ping(org.key);
    expect(answer.status).toBe(200);
    expect(rateHeaders(answer)).toEqual({ limit: 600, remaining: 599, reset: windowEnd(clock.now().getTime()) });
  });

  it('refuses the 601st call of a key in a minute, not the 600th', async () => {
    const org = await service.createOrganisation();
    const [apiKey] = await service.admin.apiKeys.listForOrganisation(org.orgId);
    // 598 calls of this window already counted for the key (as if made a moment ago).
    await seedWindow(org.orgId, 598, apiKey.id);

    const call599 = await ping(org.key);
    expect(call599.status).toBe(200);
    expect(rateHeaders(call599)).toMatchObject({ limit: 600, remaining: 1 });
    const call600 = await ping(org.key);
    expect(call600.status).toBe(200);
    expect(rateHeaders(call600)).toMatchObject({ limit: 600, remaining: 0 });
    expectRateLimited(await ping(org.key), 30);

    // Another key of the organisation is not affected by this key's limit.
    const other = await service.createKey(org.orgId);
    expect((await ping(other)).status).toBe(200);
  });

  it('refuses the 1,201st call of an organisation in a minute, across its keys', async () => {
    const org = await service.createOrganisation();
    const second = await service.createKey(org.orgId);
    // 1,195 calls of this window already counted for the organisation.
    await seedWindow(org.orgId, 1195);

    const first = await ping(org.key);
    expect(first.status).toBe(200);
    // Remaining is the smaller of what the key and the organisation have left: 1,200 - 1,196.
    expect(rateHeaders(first)).toMatchObject({ limit: 600, remaining: 4 });
    for (let call = 1197; call <= 1200; call++) {
      const answer = await ping(call % 2 ? org.key : second);
      expect(answer.status, `organisation call ${call}`).toBe(200);
      expect(rateHeaders(answer).remaining).toBe(1200 - call);
    }
    expectRateLimited(await ping(second), 30);
    expectRateLimited(await ping(org.key), 30);
    // A key that has made no call yet is refused too: the organisation's window is full.
    expectRateLimited(await ping(await service.createKey(org.orgId)), 30);
  });
});

/**
 * Counts `calls` into the organisation's current window, as earlier calls would have: the
 * organisation's count, and the key's too when one is named.
 */
const seedWindow = async (orgId: string, calls: number, apiKeyId?: string) => {
  const windowStart = Math.floor(clock.now().getTime() / 60_000) * 60;
  await service.deps.db.send(
    new UpdateCommand({
      TableName: rateTableNameOf(service.deps.tableName),
      Key: keys.rateWindow('org', orgId, windowStart),
      UpdateExpression: apiKeyId ? 'ADD n :calls, #key :calls' : 'ADD n :calls',
      ...(apiKeyId ? { ExpressionAttributeNames: { '#key': keyCounter(apiKeyId) } } : {}),
      ExpressionAttributeValues: { ':calls': calls },
    }),
  );
};

describe('rate headers on every answer of an authenticated call', () => {
  it('counts down by one on each answer, whatever its status', async () => {
    const org = await service.createOrganisation();
    const key = await service.createKey(org.orgId, { name: 'Header watcher' });
    const reset = windowEnd(clock.now().getTime());
    const seen: Array<[number, string | undefined, number]> = [];
    const check = async (label: string, answer: Promise<ApiAnswer>, status: number, code?: string) => {
      const a = await answer;
      expect(a.status, label).toBe(status);
      if (code) expect(a.body.code, label).toBe(code);
      const headers = rateHeaders(a);
      expect(headers.limit, label).toBe(600);
      expect(headers.reset, label).toBe(reset);
      seen.push([a.status, code, headers.remaining]);
      expect(headers.remaining, label).toBe(600 - seen.length);
      return a;
    };

    await check('ping', ping(key), 200);
    await check('generate', service.call('POST', '/generate', { key, body: {} }), 200);
    const created = await check('create', service.call('POST', '/requests', { key, body: subject(org) }), 201);
    const id = created.body.request.id as string;
    await check('get', service.call('GET', `/requests/${id}`, { key }), 200);
    await check('list', service.call('GET', '/requests', { key }), 200);
    await check('unknown request', service.call('GET', `/requests/${newId()}`, { key }), 404, 'not_found');
    await check('invalid body', service.call('POST', '/requests', { key, body: { subject_name: 'X' } }), 422, 'validation_failed');
    await check('invalid query', service.call('GET', '/requests?limit=0', { key }), 422, 'validation_failed');
    await check('malformed JSON', service.call('POST', '/requests', { key, rawBody: '{"subject_name":' }), 400, 'bad_request');
    const idem = { 'Idempotency-Key': `rate-${newId()}` };
    await check('first with key', service.call('POST', '/generate', { key, body: { length: 30 }, headers: idem }), 200);
    const replay = await check('replay', service.call('POST', '/generate', { key, body: { length: 30 }, headers: idem }), 200);
    expect(replay.headers.get('Idempotency-Replayed')).toBe('true');
    await check(
      'reused key',
      service.call('POST', '/generate', { key, body: { length: 31 }, headers: idem }),
      422,
      'idempotency_key_reused',
    );
    await check(
      'over-long key',
      service.call('POST', '/generate', { key, body: {}, headers: { 'Idempotency-Key': 'k'.repeat(201) } }),
      422,
      'validation_failed',
    );
    await check('revoke', service.call('POST', `/requests/${id}/revoke`, { key }), 200);
    await check('revoke again', service.call('POST', `/requests/${id}/revoke`, { key }), 409, 'illegal_transition');
    await check('complete revoked', service.call('POST', `/requests/${id}/complete`, { key }), 409, 'illegal_transition');
    expect(seen).toHaveLength(16);
  });

  it('on 403 answers: a missing scope, an address outside the allowlist, a plan without the API', async () => {
    const org = await service.createOrganisation();
    const readOnly = await service.createKey(org.orgId, { scopes: ['requests:read'] });
    const missingScope = await service.call('POST', '/requests', { key: readOnly, body: subject(org) });
    expect(missingScope.status).toBe(403);
    expect(missingScope.body.code).toBe('forbidden');
    expect(rateHeaders(missingScope)).toMatchObject({ limit: 600, remaining: 599 });

    const fenced = await service.createKey(org.orgId, { allowlist: ['10.0.0.0/8'] });
    const refused = await ping(fenced);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect(rateHeaders(refused)).toMatchObject({ limit: 600, remaining: 599 });

    const free = await service.createOrganisation({ plan: 'free' });
    const planRequired = await ping(free.key);
    expect(planRequired.status).toBe(403);
    expect(planRequired.body.code).toBe('plan_required');
    expect(rateHeaders(planRequired)).toMatchObject({ limit: 600, remaining: 599 });
  });

  it('on a 409 conflict while the same Idempotency-Key is still being processed', async () => {
    const org = await service.createOrganisation();
    const [apiKey] = await service.admin.apiKeys.listForOrganisation(org.orgId);
    const idempotencyKey = `busy-${newId()}`;
    const first = await service.call('POST', '/generate', { key: org.key, body: {}, headers: { 'Idempotency-Key': idempotencyKey } });
    expect(first.status).toBe(200);
    // Put the record back in progress, as if the first call were still running.
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: keys.idempotency(apiKey.id, sha256Hex(idempotencyKey)),
        UpdateExpression: 'SET #status = :p, lockedUntil = :until REMOVE #response',
        ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
        ExpressionAttributeValues: { ':p': 'in_progress', ':until': clock.now().getTime() + 30_000 },
      }),
    );
    const busy = await service.call('POST', '/generate', { key: org.key, body: {}, headers: { 'Idempotency-Key': idempotencyKey } });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('conflict');
    expect(rateHeaders(busy)).toMatchObject({ limit: 600, remaining: 598 });
  });
});

describe('exhaustion with lowered limits (5 per key, 8 per organisation)', () => {
  const lowered = async () => {
    const org = await service.createOrganisation();
    await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 5, perOrgPerMinute: 8 });
    return org;
  };

  it('a key gets 5 calls, then 429 with Retry-After until its window ends; a new window starts afresh', async () => {
    const org = await lowered();
    for (let call = 1; call <= 5; call++) {
      const answer = await ping(org.key);
      expect(answer.status, `call ${call}`).toBe(200);
      expect(rateHeaders(answer)).toEqual({ limit: 5, remaining: 5 - call, reset: windowEnd(clock.now().getTime()) });
    }
    const refused = await ping(org.key);
    expectRateLimited(refused, 30);
    expect(rateHeaders(refused)).toEqual({ limit: 5, remaining: 0, reset: windowEnd(clock.now().getTime()) });

    // Every endpoint is refused, and before its body is looked at: a refused create creates nothing.
    const create = await service.call('POST', '/requests', { key: org.key, body: subject(org) });
    expectRateLimited(create, 30);

    // Retry-After counts down with the clock and is never 0.
    clock.set(MINUTE + 59_100);
    expectRateLimited(await ping(org.key), 1);

    // Past the window the key has its 5 calls again.
    clock.set(MINUTE + 60_000 + 30_000);
    const again = await ping(org.key);
    expect(again.status).toBe(200);
    expect(rateHeaders(again)).toEqual({ limit: 5, remaining: 4, reset: windowEnd(clock.now().getTime()) });
    expect(rateHeaders(again).reset).toBe(MINUTE / 1000 + 120);
  });

  it('two keys share the organisation’s 8 calls', async () => {
    const org = await lowered();
    const second = await service.createKey(org.orgId);
    for (let call = 1; call <= 4; call++) {
      expect((await ping(org.key)).status).toBe(200);
      const answer = await ping(second);
      expect(answer.status).toBe(200);
      // Each key has used `call` of 5, the organisation 2 * call of 8.
      expect(rateHeaders(answer)).toMatchObject({ limit: 5, remaining: Math.min(5 - call, 8 - 2 * call) });
    }
    // Both keys are under their own limit (4 of 5), but the organisation's 8 are used.
    expectRateLimited(await ping(second), 30);
    expectRateLimited(await ping(org.key), 30);
    const third = await service.createKey(org.orgId);
    expectRateLimited(await ping(third), 30);

    clock.advance(60_000);
    for (const key of [org.key, second, third]) expect((await ping(key)).status).toBe(200);
  });

  it('concurrent calls: exactly the limit passes, for a key and for an organisation', async () => {
    // The key's limit binds (the organisation's is far away): 20 calls at once, 5 pass.
    const byKey = await service.createOrganisation();
    await service.admin.setRateLimits(byKey.orgId, { perKeyPerMinute: 5, perOrgPerMinute: 1000 });
    const keyAnswers = await Promise.all(Array.from({ length: 20 }, () => ping(byKey.key)));
    expect(keyAnswers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(keyAnswers.filter((a) => a.status === 429)).toHaveLength(15);
    // The five that passed saw remaining 4, 3, 2, 1, 0: each call counted exactly once.
    const remaining = keyAnswers.filter((a) => a.status === 200).map((a) => rateHeaders(a).remaining);
    expect(remaining.sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4]);

    // The organisation's limit binds: 2 keys, 10 calls each at once, 5 pass in all.
    const byOrg = await service.createOrganisation();
    await service.admin.setRateLimits(byOrg.orgId, { perKeyPerMinute: 1000, perOrgPerMinute: 5 });
    const second = await service.createKey(byOrg.orgId);
    const orgAnswers = await Promise.all(Array.from({ length: 20 }, (_, i) => ping(i % 2 ? second : byOrg.key)));
    expect(orgAnswers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(orgAnswers.filter((a) => a.status === 429)).toHaveLength(15);
  });

  it('an organisation’s lowered limits leave other organisations alone', async () => {
    const org = await lowered();
    const other = await service.createOrganisation();
    for (let call = 0; call < 5; call++) await ping(org.key);
    expectRateLimited(await ping(org.key), 30);
    const answer = await ping(other.key);
    expect(answer.status).toBe(200);
    expect(rateHeaders(answer)).toMatchObject({ limit: 600, remaining: 599 });
  });

  it('a refused POST does not claim its Idempotency-Key', async () => {
    const org = await lowered();
    for (let call = 0; call < 5; call++) await ping(org.key);
    const headers = { 'Idempotency-Key': `limited-${newId()}` };
    expectRateLimited(await service.call('POST', '/requests', { key: org.key, body: subject(org), headers }), 30);

    clock.advance(60_000);
    const created = await service.call('POST', '/requests', { key: org.key, body: subject(org), headers });
    expect(created.status).toBe(201);
    expect(created.headers.get('Idempotency-Replayed')).toBeNull();
    expect(created.body.link).toMatch(/^http/);
  });
});

describe('exact under concurrency: every call is decided by the table', () => {
  /** The organisation's current window as stored: its count, and the key's. */
  const storedWindow = async (orgId: string, apiKeyId: string) => {
    const windowStart = Math.floor(clock.now().getTime() / 60_000) * 60;
    const { Item } = await service.deps.db.send(new GetCommand({ TableName: rateTableNameOf(service.deps.tableName), Key: keys.rateWindow('org', orgId, windowStart), ConsistentRead: true }));
    return { org: Number(Item?.n ?? 0), key: Number(Item?.[keyCounter(apiKeyId)] ?? 0) };
  };

  /** `calls` pings on `key`, `burst` at a time; the answers in the order they were sent. */
  const bursts = async (key: string, calls: number, burst: number) => {
    const answers: ApiAnswer[] = [];
    for (let sent = 0; sent < calls; sent += burst) {
      answers.push(...(await Promise.all(Array.from({ length: Math.min(burst, calls - sent) }, () => ping(key)))));
    }
    return answers;
  };

  it('640 calls on one key in bursts of 40 at once: exactly 600 admitted, each with its own remaining count, 40 refused', async () => {
    const org = await service.createOrganisation();
    const [apiKey] = await service.admin.apiKeys.listForOrganisation(org.orgId);
    const answers = await bursts(org.key, 640, 40);
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(admitted).toHaveLength(600);
    expect(refused).toHaveLength(40);
    for (const answer of refused) expectRateLimited(answer, 30);
    // Every admitted call had a place of its own: remaining 599 down to 0, each seen once.
    const remaining = admitted.map((a) => rateHeaders(a).remaining).sort((x, y) => y - x);
    expect(remaining).toEqual(Array.from({ length: 600 }, (_, i) => 599 - i));
    // The table counts the admitted calls only.
    expect(await storedWindow(org.orgId, apiKey.id)).toEqual({ org: 600, key: 600 });
  });

  it("calls a key makes past its own limit do not use up the organisation's: its other keys still get the rest of the 1,200", async () => {
    const org = await service.createOrganisation();
    const [first] = await service.admin.apiKeys.listForOrganisation(org.orgId);
    const second = await service.createKey(org.orgId);
    const third = await service.createKey(org.orgId);
    const firstAnswers = await bursts(org.key, 700, 40);
    expect(firstAnswers.filter((a) => a.status === 200)).toHaveLength(600);
    const [secondAnswers, thirdAnswers] = await Promise.all([bursts(second, 400, 20), bursts(third, 400, 20)]);
    const admitted = [...secondAnswers, ...thirdAnswers].filter((a) => a.status === 200);
    expect(admitted).toHaveLength(600);
    for (const answer of [...secondAnswers, ...thirdAnswers].filter((a) => a.status !== 200)) expectRateLimited(answer, 30);
    expect((await storedWindow(org.orgId, first.id)).org).toBe(1200);
  });

  it('a revoked key known to the function gives back the count it was given before it was found revoked', async () => {
    const org = await service.createOrganisation();
    const [apiKey] = await service.admin.apiKeys.listForOrganisation(org.orgId);
    const revoked = await service.createKey(org.orgId);
    expect((await ping(revoked)).status).toBe(200);
    const [revokedKey] = (await service.admin.apiKeys.listForOrganisation(org.orgId)).filter((k) => k.id !== apiKey.id);
    await service.admin.revokeApiKey(org.orgId, revokedKey.id);
    for (let call = 0; call < 5; call++) expect((await ping(revoked)).status).toBe(401);
    expect(await storedWindow(org.orgId, revokedKey.id)).toEqual({ org: 1, key: 1 });
  });
});
