import type { Server } from 'node:http';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { createGateway, listen } from '../../lambdas/local/gateway.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { createAppDeps } from '../../lambdas/wiring.ts';
import { auditEntries, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * The audit chain (DESIGN.md): every state change appends, in the same transaction, an entry with
 * the organisation's next sequence number and the previous entry's hash. Under concurrency the
 * numbers stay 1..N with no gap and no twin, and every change names the key that made it.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

type AuditItem = Record<string, any> & { seq: number; hash: string; prevHash: string; type: string };

const GENESIS = '0'.repeat(64);


const auditItems = async (orgId: string) => (await auditEntries(service, orgId)) as AuditItem[];
const requestItems = (orgId: string) => requestItemsOf(service, orgId);

const head = async (orgId: string) =>
  (
    await service.deps.db.send(
      new GetCommand({ TableName: service.deps.tableName, Key: { pk: `AUDIT#${orgId}`, sk: 'HEAD' }, ConsistentRead: true }),
    )
  ).Item as { n: number; hash: string } | undefined;

/**
 * Asserts the organisation's whole chain: sequence numbers exactly 1..N in key order, each entry's
 * prevHash the previous entry's hash (zeros for the first), each hash the SHA-256 of the entry's
 * canonical JSON without it, and the head at N with the last hash. Returns the entries.
 */
const verifyChain = async (orgId: string) => {
  const items = await auditItems(orgId);
  expect(items.length).toBeGreaterThan(0);
  items.forEach((item, index) => {
    expect(item.seq, `entry ${index}`).toBe(index + 1);
    expect(item.sk).toBe(`SEQ#${String(index + 1).padStart(12, '0')}`);
    expect(item.prevHash, `prevHash of ${item.seq}`).toBe(index === 0 ? GENESIS : items[index - 1].hash);
    const { pk: _pk, sk: _sk, kind: _kind, hash, ...unsigned } = item;
    expect(sha256Hex(canonicalize(unsigned)!), `hash of ${item.seq}`).toBe(hash);
  });
  const seqs = new Set(items.map((item) => item.seq));
  expect(seqs.size).toBe(items.length);
  expect(await head(orgId)).toMatchObject({ n: items.length, hash: items[items.length - 1].hash });
  return items;
};


const body = (o: TestOrganisation, n: number) => ({
  subject_name: `Subject ${n}`,
  justification: 'Audit chain concurrency test',
  recipients: [o.owner.email],
});

const apiKeyIdOf = async (secret: string) => (await service.deps.apiKeys.findByHash(apiKeyHash(secret)))!.id;

describe('sequence numbers under concurrency', () => {
  const CONCURRENT_CREATES = 120;
  // One process queues an organisation's writers, so the last of N concurrent creates waits for
  // N - 1 transactions; 120 keeps that well inside the local gateway's 29-second call budget on a
  // loaded 2-core CI machine (200 took up to 45 s there, and the last answers timed out).
  it('120 concurrent creates in one organisation leave 1..N with no gap or twin, chained', async () => {
    const org = await service.createOrganisation();
    await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 1000, perOrgPerMinute: 2000 });
    const key = await service.createKey(org.orgId, { name: 'Bulk importer', scopes: ['requests:write'] });
    const keyId = await apiKeyIdOf(key);
    const before = (await head(org.orgId))!.n;

    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT_CREATES }, (_, n) => service.call('POST', '/requests', { key, body: body(org, n) })),
    );
    const elapsed = Date.now() - started;
    expect(answers.map((a) => a.status)).toEqual(Array(CONCURRENT_CREATES).fill(201));

    const entries = await verifyChain(org.orgId);
    expect(entries).toHaveLength(before + CONCURRENT_CREATES);
    const created = entries.filter((entry) => entry.type === 'request.created');
    expect(created).toHaveLength(CONCURRENT_CREATES);
    // One entry per request, each naming the key that made it.
    const answered = answers.map((a) => a.body.request.id as string).sort();
    expect(created.map((entry) => entry.requestId).sort()).toEqual(answered);
    expect((await requestItems(org.orgId)).map((item) => item.id).sort()).toEqual(answered);
    for (const entry of created) {
      expect(entry.actor).toEqual({ type: 'api', label: 'Bulk importer', id: keyId });
      expect(entry.data.actor).toEqual({ type: 'api', label: 'Bulk importer' });
    }
    console.info(`${CONCURRENT_CREATES} concurrent creates: ${elapsed} ms`);
  });

  it('two service processes over one table (separate in-process queues) still leave 1..N', async () => {
    const org = await service.createOrganisation();
    await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 1000, perOrgPerMinute: 2000 });
    // A second "Lambda container": its own dependencies, so its own AuditLog and queue.
    const other = createAppDeps({
      tableName: service.deps.tableName,
      urls: service.deps.urls,
      notifier: service.deps.notifier,
      db: service.deps.db,
      // The same keys as the first container, as every function of one deployment has.
      codeKey: service.deps.codeKey,
    });
    expect(other.audit).not.toBe(service.deps.audit);
    const server: Server = createGateway(other);
    const port = await listen(server, 0);
    try {
      const viaOther = (n: number) =>
        fetch(`http://127.0.0.1:${port}/v1/requests`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body(org, n)),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, n) => (n % 2 ? viaOther(n) : service.call('POST', '/requests', { key: org.key, body: body(org, n) }))),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(60).fill(201));
      const entries = await verifyChain(org.orgId);
      expect(entries.filter((entry) => entry.type === 'request.created')).toHaveLength(60);
      expect(await requestItems(org.orgId)).toHaveLength(60);
    } finally {
      server.closeAllConnections();
      server.close();
      // `other` shares the service's document client, which the service destroys when it stops.
    }
  });
});

describe('every state change is audited with the key’s name, with the change', () => {
  it('create, revoke and complete each append one entry naming the key and holding the changed request', async () => {
    const org = await service.createOrganisation();
    const creator = await service.createKey(org.orgId, { name: 'Helpdesk integration' });
    const ender = await service.createKey(org.orgId, { name: 'Offboarding robot' });
    const [creatorId, enderId] = [await apiKeyIdOf(creator), await apiKeyIdOf(ender)];
    const before = (await head(org.orgId))!.n;

    const created = await service.call('POST', '/requests', { key: creator, body: body(org, 1) });
    const toRevoke = created.body.request;
    const revoked = await service.call('POST', `/requests/${toRevoke.id}/revoke`, { key: ender });
    expect(revoked.status).toBe(200);
    const second = (await service.call('POST', '/requests', { key: creator, body: body(org, 2) })).body.request;
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: keys.request(second.id),
        UpdateExpression: 'SET #status = :s',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':s': 'submitted' },
      }),
    );
    const completed = await service.call('POST', `/requests/${second.id}/complete`, { key: ender });
    expect(completed.status).toBe(200);

    const entries = (await verifyChain(org.orgId)).slice(before);
    expect(entries.map((entry) => [entry.type, entry.requestId, entry.actor.label])).toEqual([
      ['request.created', toRevoke.id, 'Helpdesk integration'],
      ['request.revoked', toRevoke.id, 'Offboarding robot'],
      ['request.created', second.id, 'Helpdesk integration'],
      ['request.completed', second.id, 'Offboarding robot'],
    ]);
    expect(entries.map((entry) => entry.actor.id)).toEqual([creatorId, enderId, creatorId, enderId]);
    for (const entry of entries) {
      expect(entry.orgId).toBe(org.orgId);
      expect(entry.clientId).toBe(org.defaultClientId);
      expect(entry.data.actor).toEqual({ type: 'api', label: entry.actor.label });
    }
    // Each entry holds the request exactly as the change left it (and as the caller was answered).
    expect(entries[0].data.request).toEqual(toRevoke);
    expect(entries[1].data.request).toEqual(revoked.body);
    expect(entries[1].data.details).toEqual({ revoked_reason: revoked.body.revoked_reason });
    expect(entries[3].data.request).toEqual(completed.body);
    expect(entries[3].data.details).toEqual({ purge_reason: completed.body.purge_reason });
  });

  it('a refused or failed change appends nothing', async () => {
    const org = await service.createOrganisation();
    const reader = await service.createKey(org.orgId, { scopes: ['requests:read'] });
    const created = (await service.call('POST', '/requests', { key: org.key, body: body(org, 1) })).body.request;
    const before = (await head(org.orgId))!.n;

    const failures: Array<[Promise<ApiAnswer>, number]> = [
      [service.call('POST', `/requests/${created.id}/complete`, { key: org.key }), 409],
      [service.call('POST', '/requests', { key: org.key, body: { subject_name: 'x' } }), 422],
      [service.call('POST', '/requests', { key: reader, body: body(org, 2) }), 403],
      [service.call('POST', `/requests/${newId()}/revoke`, { key: org.key }), 404],
      [service.call('POST', '/requests', { body: body(org, 3) }), 401],
    ];
    for (const [answer, status] of failures) expect((await answer).status).toBe(status);
    expect((await head(org.orgId))!.n).toBe(before);
    expect(await requestItems(org.orgId)).toHaveLength(1);
  });

  it('concurrent revokes of one request: one wins, one entry; the others answer 409 illegal_transition', async () => {
    const org = await service.createOrganisation();
    const created = (await service.call('POST', '/requests', { key: org.key, body: body(org, 1) })).body.request;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => service.call('POST', `/requests/${created.id}/revoke`, { key: org.key })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const losers = answers.filter((a) => a.status !== 200);
    expect(losers.map((a) => [a.status, a.body.code])).toEqual(Array(9).fill([409, 'illegal_transition']));

    const entries = await verifyChain(org.orgId);
    expect(entries.filter((entry) => entry.type === 'request.revoked').map((entry) => entry.requestId)).toEqual([created.id]);
    const [item] = await requestItems(org.orgId);
    expect(item).toMatchObject({ status: 'revoked', version: 2 });
  });
});
