import { randomBytes } from 'node:crypto';
import { QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * SPEC.md Authentication: Bearer keys; 401 `unauthenticated` for a missing, malformed, unknown,
 * revoked or expired key (revoked and expired keys at once); 403 `forbidden` for a missing scope,
 * another client's key, or an address outside the allowlist (audited); 403 `plan_required` on a
 * plan without the API.
 */
const BASE_TIME = Date.now();
const clock = new FakeClock(BASE_TIME);

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Auth Org' });
});
afterAll(() => service?.stop());
beforeEach(() => clock.set(BASE_TIME));

const requestBody = (o: TestOrganisation = org, extra: Record<string, unknown> = {}) => ({
  subject_name: 'Alice Auth',
  justification: 'Authentication test request',
  recipients: [o.owner.email],
  ...extra,
});

const expectError = (answer: ApiAnswer, status: number, code: string, label = '') => {
  expect(answer.status, label).toBe(status);
  expect(answer.body, label).toEqual({ message: expect.any(String), code });
  expect(answer.body.message.length, label).toBeGreaterThan(0);
};
const expectUnauthenticated = (answer: ApiAnswer, label = '') => expectError(answer, 401, 'unauthenticated', label);

const withAuthorization = (value: string, path = '/ping') =>
  service.call('GET', path, { headers: { Authorization: value } });

const createRequest = async (key: string, extra: Record<string, unknown> = {}) => {
  const answer = await service.call('POST', '/requests', { key, body: requestBody(org, extra) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.request as { id: string; client: { id: string; name: string }; status: string };
};

const apiKeyIdOf = async (secret: string) => (await service.deps.apiKeys.findByHash(apiKeyHash(secret)))!.id;

const auditOf = async (orgId: string, type: string) => {
  const { Items } = await service.deps.db.send(
    new QueryCommand({
      TableName: service.deps.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
      ExpressionAttributeValues: { ':pk': `AUDIT#${orgId}`, ':seq': 'SEQ#' },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).filter((item) => item.type === type);
};

const requestCount = async (orgId: string) => {
  const { Items } = await service.deps.db.send(
    new ScanCommand({
      TableName: service.deps.tableName,
      FilterExpression: 'kind = :kind AND orgId = :org',
      ExpressionAttributeValues: { ':kind': 'request', ':org': orgId },
    }),
  );
  return (Items ?? []).length;
};

const markSubmitted = (requestId: string) =>
  service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: keys.request(requestId),
      UpdateExpression: 'SET #status = :s, submittedAt = :at',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':s': 'submitted', ':at': clock.now().toISOString() },
    }),
  );

describe('401 unauthenticated', () => {
  it('without an Authorization header, on every endpoint, before the body is looked at', async () => {
    const id = newId();
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/ping', undefined],
      ['POST', '/generate', {}],
      ['GET', '/requests', undefined],
      ['POST', '/requests', { subject_name: 'x' }],
      ['GET', `/requests/${id}`, undefined],
      ['POST', `/requests/${id}/revoke`, undefined],
      ['POST', `/requests/${id}/complete`, undefined],
    ];
    for (const [method, path, body] of calls) {
      expectUnauthenticated(await service.call(method, path, { body }), `${method} ${path}`);
    }
  });

  it('with a malformed Authorization header', async () => {
    const malformed = [
      `Basic ${org.key}`,
      `Token ${org.key}`,
      org.key,
      'Bearer',
      'Bearer ',
      `Bearer ${org.key} extra`,
      `Bearer ${org.key.slice(0, -1)}`,
      `Bearer ${org.key}A`,
      `Bearer ${org.key.replace('chs_live_', 'chs_test_')}`,
      `Bearer ${org.key.slice(0, -1)}=`,
    ];
    for (const value of malformed) expectUnauthenticated(await withAuthorization(value), value);
    // The scheme name is case-insensitive (RFC 9110), so this one is well formed.
    expect((await withAuthorization(`bearer ${org.key}`)).status).toBe(200);
  });

  it('with an unknown key, including one a character away from a real key', async () => {
    expectUnauthenticated(await service.call('GET', '/ping', { key: `chs_live_${randomBytes(32).toString('base64url')}` }));
    const last = org.key.at(-1) === 'A' ? 'B' : 'A';
    expectUnauthenticated(await service.call('GET', '/ping', { key: `${org.key.slice(0, -1)}${last}` }));
    expect((await service.call('GET', '/ping', { key: org.key })).status).toBe(200);
  });

  it('with a revoked key, from the very next call', async () => {
    const key = await service.createKey(org.orgId, { name: 'Soon revoked' });
    expect((await service.call('GET', '/ping', { key })).status).toBe(200);
    expect((await service.call('GET', '/requests', { key })).status).toBe(200);

    await service.admin.revokeApiKey(org.orgId, await apiKeyIdOf(key));
    expectUnauthenticated(await service.call('GET', '/ping', { key }));
    expectUnauthenticated(await service.call('GET', '/requests', { key }));
    const before = await requestCount(org.orgId);
    expectUnauthenticated(await service.call('POST', '/requests', { key, body: requestBody() }));
    expect(await requestCount(org.orgId)).toBe(before);
    // The organisation's other keys go on working.
    expect((await service.call('GET', '/ping', { key: org.key })).status).toBe(200);
  });

  it('reads the key with a strongly consistent read, so a revocation holds at once in AWS too', async () => {
    // DynamoDB Local is always consistent, so the test above cannot tell; in AWS an eventually
    // consistent GetItem may return the key as it was before its revocation for a while.
    const sent: Array<{ name: string; input: Record<string, any> }> = [];
    const db = service.deps.db;
    const send = db.send;
    db.send = ((command: { constructor: { name: string }; input: Record<string, any> }, ...rest: unknown[]) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return (send as (...args: unknown[]) => unknown).call(db, command, ...rest);
    }) as typeof db.send;
    try {
      expect((await service.call('GET', '/ping', { key: org.key })).status).toBe(200);
    } finally {
      db.send = send;
    }
    const keyReads = sent.filter((c) => c.name === 'GetCommand' && String(c.input.Key?.pk).startsWith('APIKEY#'));
    expect(keyReads).toHaveLength(1);
    expect(keyReads[0].input.Key.pk).toBe(`APIKEY#${apiKeyHash(org.key)}`);
    expect(keyReads[0].input.ConsistentRead).toBe(true);
  });

  it('with a key whose expiry has passed', async () => {
    // A key is created only with an expiry in the future: made two minutes ago, it expired a minute ago.
    clock.set(BASE_TIME - 120_000);
    const key = await service.createKey(org.orgId, { expiresAt: new Date(BASE_TIME - 60_000).toISOString() });
    clock.set(BASE_TIME);
    expectUnauthenticated(await service.call('GET', '/ping', { key }));
    expectUnauthenticated(await service.call('POST', '/generate', { key, body: {} }));
  });

  it('with a key that expires while in use, from the moment of its expiry', async () => {
    const expiresAt = new Date(BASE_TIME + 10 * 60_000);
    const key = await service.createKey(org.orgId, { expiresAt: expiresAt.toISOString() });
    const ping = await service.call('GET', '/ping', { key });
    expect(ping.status).toBe(200);
    expect(ping.body.key.expires_at).toBe(expiresAt.toISOString());

    clock.set(expiresAt.getTime() - 1);
    expect((await service.call('GET', '/ping', { key })).status).toBe(200);
    clock.set(expiresAt.getTime());
    expectUnauthenticated(await service.call('GET', '/ping', { key }));
    clock.set(expiresAt.getTime() + 24 * 60 * 60_000);
    expectUnauthenticated(await service.call('GET', '/requests', { key }));
  });
});

describe('403 forbidden for a missing scope', () => {
  it('a requests:read key reads but cannot create, revoke or complete, whatever the body', async () => {
    const reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Reader' });
    const existing = await createRequest(org.key);
    const before = await requestCount(org.orgId);

    expectError(await service.call('POST', '/requests', { key: reader, body: requestBody() }), 403, 'forbidden');
    // The scope is checked before the body: an invalid body still answers 403, not 422.
    expectError(await service.call('POST', '/requests', { key: reader, body: { subject_name: 'x' } }), 403, 'forbidden');
    expectError(await service.call('POST', `/requests/${existing.id}/revoke`, { key: reader }), 403, 'forbidden');
    await markSubmitted(existing.id);
    expectError(await service.call('POST', `/requests/${existing.id}/complete`, { key: reader }), 403, 'forbidden');
    expect(await requestCount(org.orgId)).toBe(before);
    expect((await service.call('GET', `/requests/${existing.id}`, { key: org.key })).body.status).toBe('submitted');

    expect((await service.call('GET', '/requests', { key: reader })).status).toBe(200);
    expect((await service.call('GET', `/requests/${existing.id}`, { key: reader })).status).toBe(200);
  });

  it('a requests:write key writes but cannot read', async () => {
    const writer = await service.createKey(org.orgId, { scopes: ['requests:write'] });
    const created = await createRequest(writer);
    expectError(await service.call('GET', '/requests', { key: writer }), 403, 'forbidden');
    expectError(await service.call('GET', `/requests/${created.id}`, { key: writer }), 403, 'forbidden');
    expect((await service.call('POST', `/requests/${created.id}/revoke`, { key: writer })).status).toBe(200);
  });

  it('ping and generate accept any scope (a key has at least one: none is refused at creation)', async () => {
    await expect(service.createKey(org.orgId, { scopes: [] })).rejects.toMatchObject({ status: 422, errors: { scopes: [expect.any(String)] } });
    for (const scopes of [['events:read'], ['tickets:write'], ['tickets:write', 'webhooks:write']] as const) {
      const key = await service.createKey(org.orgId, { scopes: [...scopes] });
      const ping = await service.call('GET', '/ping', { key });
      expect(ping.status, scopes.join()).toBe(200);
      expect(ping.body.key.scopes).toEqual(scopes);
      const generated = await service.call('POST', '/generate', { key, body: { length: 12 } });
      expect(generated.status, scopes.join()).toBe(200);
      expect(generated.body.value).toHaveLength(12);
      expectError(await service.call('GET', '/requests', { key }), 403, 'forbidden', scopes.join());
      expectError(await service.call('POST', '/requests', { key, body: requestBody() }), 403, 'forbidden', scopes.join());
    }
  });
});

describe('client-scoped keys', () => {
  let clientA: { id: string; name: string };
  let clientB: { id: string; name: string };
  let keyA: string;
  let keyB: string;
  let requestA: { id: string; client: { id: string } };
  let requestB: { id: string; client: { id: string } };

  beforeAll(async () => {
    clientA = await service.admin.createClient(org.orgId, 'Acme Ltd');
    clientB = await service.admin.createClient(org.orgId, 'Bravo plc');
    keyA = await service.createKey(org.orgId, { clientId: clientA.id, name: 'Acme key' });
    keyB = await service.createKey(org.orgId, { clientId: clientB.id, name: 'Bravo key' });
    requestA = await createRequest(keyA);
    requestB = await createRequest(keyB);
  });

  it('creates for its own client only', async () => {
    expect(requestA.client).toEqual({ id: clientA.id, name: 'Acme Ltd' });
    expect(requestB.client).toEqual({ id: clientB.id, name: 'Bravo plc' });
    expect((await service.call('POST', '/requests', { key: keyA, body: requestBody(org, { client_id: clientA.id }) })).status).toBe(201);
    const before = await requestCount(org.orgId);
    expectError(
      await service.call('POST', '/requests', { key: keyA, body: requestBody(org, { client_id: clientB.id }) }),
      403,
      'forbidden',
    );
    expect(await requestCount(org.orgId)).toBe(before);
  });

  it('never sees a request of another client: GET answers 404', async () => {
    expectError(await service.call('GET', `/requests/${requestB.id}`, { key: keyA }), 404, 'not_found');
    expectError(await service.call('GET', `/requests/${requestA.id}`, { key: keyB }), 404, 'not_found');
    expect((await service.call('GET', `/requests/${requestA.id}`, { key: keyA })).status).toBe(200);
    // The organisation-wide key sees both.
    expect((await service.call('GET', `/requests/${requestB.id}`, { key: org.key })).status).toBe(200);
  });

  it('lists its own client only; naming another client answers 403', async () => {
    const listed = await service.call('GET', '/requests?limit=100', { key: keyA });
    expect(listed.status).toBe(200);
    const ids = listed.body.data.map((r: { id: string }) => r.id);
    expect(ids).toContain(requestA.id);
    expect(ids).not.toContain(requestB.id);
    expect(listed.body.data.every((r: { client: { id: string } }) => r.client.id === clientA.id)).toBe(true);

    const own = await service.call('GET', `/requests?client_id=${clientA.id}`, { key: keyA });
    expect(own.status).toBe(200);
    expect(own.body.data.map((r: { id: string }) => r.id)).toContain(requestA.id);
    expectError(await service.call('GET', `/requests?client_id=${clientB.id}`, { key: keyA }), 403, 'forbidden');
    for (const status of ['pending', 'revoked']) {
      const filtered = await service.call('GET', `/requests?status=${status}`, { key: keyA });
      expect(filtered.body.data.map((r: { id: string }) => r.id)).not.toContain(requestB.id);
    }

    const all = await service.call('GET', '/requests?limit=100', { key: org.key });
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([requestA.id, requestB.id]));
  });

  it('cannot revoke or complete a request of another client: 404, and the request is untouched', async () => {
    expectError(await service.call('POST', `/requests/${requestB.id}/revoke`, { key: keyA }), 404, 'not_found');
    const pending = await createRequest(keyB);
    await markSubmitted(pending.id);
    expectError(await service.call('POST', `/requests/${pending.id}/complete`, { key: keyA }), 404, 'not_found');

    expect((await service.call('GET', `/requests/${requestB.id}`, { key: keyB })).body.status).toBe('pending');
    expect((await service.call('GET', `/requests/${pending.id}`, { key: keyB })).body.status).toBe('submitted');
    // Its own client's key can.
    expect((await service.call('POST', `/requests/${pending.id}/complete`, { key: keyB })).status).toBe(200);
  });

  it('ping names the client', async () => {
    const ping = await service.call('GET', '/ping', { key: keyA });
    expect(ping.body.key.client).toEqual({ id: clientA.id, name: 'Acme Ltd' });
  });
});

describe('IP allowlist (the local gateway sees the caller as 127.0.0.1)', () => {
  it('refuses a call from outside the allowlist with 403, audited with the key name and address', async () => {
    const key = await service.createKey(org.orgId, { allowlist: ['10.0.0.0/8'], name: 'Office only' });
    const keyId = await apiKeyIdOf(key);
    const refusedBefore = (await auditOf(org.orgId, 'api_key.address_refused')).length;
    const requestsBefore = await requestCount(org.orgId);

    expectError(await service.call('GET', '/ping', { key }), 403, 'forbidden');
    expectError(await service.call('POST', '/requests', { key, body: requestBody() }), 403, 'forbidden');
    expect(await requestCount(org.orgId)).toBe(requestsBefore);

    const refused = (await auditOf(org.orgId, 'api_key.address_refused')).slice(refusedBefore);
    expect(refused).toHaveLength(2);
    for (const entry of refused) {
      expect(entry.actor).toEqual({ type: 'api', label: 'Office only', id: keyId });
      expect(entry.data.actor).toEqual({ type: 'api', label: 'Office only' });
      expect(entry.data.details.address).toBe('127.0.0.1');
    }
    expect(refused.map((entry) => entry.data.details.route)).toEqual(['GET /v1/ping', 'POST /v1/requests']);
  });

  it('judges the connection’s address, never X-Forwarded-For or X-Real-IP', async () => {
    const spoofed = { 'X-Forwarded-For': '10.1.2.3', 'X-Real-IP': '10.1.2.3', Forwarded: 'for=10.1.2.3' };
    const fenced = await service.createKey(org.orgId, { allowlist: ['10.0.0.0/8'], name: 'Spoof target' });
    expectError(await service.call('GET', '/ping', { key: fenced, headers: spoofed }), 403, 'forbidden');
    const [entry] = (await auditOf(org.orgId, 'api_key.address_refused')).filter((e) => e.actor.label === 'Spoof target');
    expect(entry.data.details.address).toBe('127.0.0.1');

    const loopback = await service.createKey(org.orgId, { allowlist: ['127.0.0.1'] });
    expect((await service.call('GET', '/ping', { key: loopback, headers: spoofed })).status).toBe(200);
  });

  it('allows a call from an allowed block or address', async () => {
    const allowed = [['127.0.0.0/8'], ['127.0.0.1'], ['127.0.0.1/32'], ['10.0.0.0/8', '127.0.0.1']];
    for (const allowlist of allowed) {
      const key = await service.createKey(org.orgId, { allowlist });
      expect((await service.call('GET', '/ping', { key })).status, allowlist.join()).toBe(200);
    }
    for (const allowlist of [['127.0.0.2'], ['127.0.0.2/32'], ['128.0.0.0/1']]) {
      const key = await service.createKey(org.orgId, { allowlist });
      expectError(await service.call('GET', '/ping', { key }), 403, 'forbidden', allowlist.join());
    }
  });
});

describe('plans', () => {
  it('a Free organisation answers 403 plan_required on every endpoint; upgraded, at once 200', async () => {
    const free = await service.createOrganisation({ plan: 'free', name: 'Free Org' });
    const id = newId();
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/ping', undefined],
      ['POST', '/generate', {}],
      ['GET', '/requests', undefined],
      ['POST', '/requests', requestBody(free)],
      ['GET', `/requests/${id}`, undefined],
      ['POST', `/requests/${id}/revoke`, undefined],
      ['POST', `/requests/${id}/complete`, undefined],
    ];
    for (const [method, path, body] of calls) {
      expectError(await service.call(method, path, { key: free.key, body }), 403, 'plan_required', `${method} ${path}`);
    }
    expect(await requestCount(free.orgId)).toBe(0);

    await service.admin.setPlan(free.orgId, 'team');
    expect((await service.call('GET', '/ping', { key: free.key })).status).toBe(200);
    await service.admin.setPlan(free.orgId, 'business');
    expect((await service.call('POST', '/requests', { key: free.key, body: requestBody(free) })).status).toBe(201);
    await service.admin.setPlan(free.orgId, 'free');
    expectError(await service.call('GET', '/ping', { key: free.key }), 403, 'plan_required');
  });
});
