/**
 * DynamoDB failing on the write paths, over real HTTP: a proxy in front of the run's DynamoDB Local
 * throttles, cancels with TransactionConflict, or stops answering chosen calls. Whatever fails and
 * however often, the caller gets either the answer of a call that happened once, or a 503
 * `service_unavailable` with Retry-After and a table as it was before (no item written, the
 * organisation's audit chain unmoved); the chain never has a gap or a duplicate.
 */
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDocumentClient, type Documents } from '../../lambdas/store/dynamo.ts';
import { seal } from '../../web/crypto/envelope.ts';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import { startFaultProxy, type FaultKind, type FaultProxy } from '../support/dynamo-fault-proxy.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { createShareAs, shareMaterial } from '../support/shares.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * Short enough that a call that never answers fails within seconds, long enough for DynamoDB Local
 * on a busy machine; two attempts, so one failure is retried by the SDK.
 */
const SDK = { requestTimeoutMs: 2000, maxAttempts: 2 };

let proxy: FaultProxy;
let service: TestService;
let org: TestOrganisation;
let signedIn: MemberBrowser | undefined;
/** The organisation's owner in the member application, signed in on first use. */
const owner = async () => (signedIn ??= await MemberBrowser.signIn(service, org.owner.email));
/** Reads the table straight from DynamoDB Local, past the proxy. */
let direct: Documents;

beforeAll(async () => {
  proxy = await startFaultProxy(inject('dynamoEndpoint'));
  service = await startTestService({ dynamo: { endpoint: proxy.endpoint, ...SDK } });
  org = await service.createOrganisation({ name: 'Fault Org' });
  direct = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
});
afterAll(async () => {
  await service?.stop();
  await proxy?.stop();
  direct?.destroy();
});

// --- the table as it stands ----------------------------------------------------------------

/** Items every call touches whether or not it changes anything: rate windows, key and session use, idempotency claims. */
const BOOKKEEPING = /^(RATE|APIKEY|SESSION|IDEM)#/;

/** Every item but the bookkeeping, by key. */
const snapshot = async () => {
  const items = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await direct.send(new ScanCommand({ TableName: service.deps.tableName, ExclusiveStartKey: start, ConsistentRead: true }));
    for (const item of page.Items ?? []) {
      if (!BOOKKEEPING.test(String(item.pk))) items.set(`${item.pk} ${item.sk}`, JSON.stringify(item));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

const expectSameTable = (before: Map<string, string>, after: Map<string, string>) => {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));
  expect(changed, 'items written, changed or deleted').toEqual([]);
};

interface Entry {
  seq: number;
  hash: string;
  prevHash: string;
  type: string;
  requestId?: string | null;
}

/** The organisation's chain, checked whole: numbers 1..n with no gap, each entry naming the one before, the head on the last. */
const chain = async (): Promise<Entry[]> => {
  const entries: Entry[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await direct.send(
      new QueryCommand({
        TableName: service.deps.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
        ExpressionAttributeValues: { ':pk': `AUDIT#${org.orgId}`, ':seq': 'SEQ#' },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    entries.push(...((page.Items ?? []) as Entry[]));
    start = page.LastEvaluatedKey;
  } while (start);
  entries.sort((a, b) => a.seq - b.seq);
  entries.forEach((entry, index) => {
    expect(entry.seq, 'sequence numbers without a gap').toBe(index + 1);
    if (index > 0) expect(entry.prevHash, `entry ${entry.seq} names the one before`).toBe(entries[index - 1].hash);
  });
  const head = (await direct.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `AUDIT#${org.orgId}`, sk: 'HEAD' }, ConsistentRead: true }))).Item;
  expect(head?.n ?? 0, 'the head on the last entry').toBe(entries.length);
  if (entries.length > 0) expect(head?.hash).toBe(entries[entries.length - 1].hash);
  return entries;
};

const expectUnavailable = (answer: ApiAnswer) => {
  expectError(answer, 503, 'service_unavailable');
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter, 'a Retry-After header').toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(30);
};

// --- the write paths -----------------------------------------------------------------------

const createBody = (extra: Record<string, unknown> = {}) => ({
  subject_name: 'Jane Doe',
  justification: 'The firewall admin password',
  recipients: [org.owner.email, org.member.email],
  verification_mode: 'none',
  ...extra,
});

const createRequest = async (extra: Record<string, unknown> = {}) => {
  const created = await service.call('POST', '/requests', { key: org.key, body: createBody(extra) });
  expect(created.status, created.text).toBe(201);
  return { id: created.body.request.id as string, token: new URL(created.body.link).pathname.split('/').pop()! };
};

const subjectCall = (token: string, method: string, path: string, body?: unknown) =>
  service.call(method, path, { headers: { 'X-Link-Token': token }, body });

/** A pending request, opened by its subject, and the envelope the subject's page would send (sealed to the served keys). */
const openedWithEnvelope = async () => {
  const request = await createRequest();
  const described = await subjectCall(request.token, 'GET', '/subject/request');
  expect(described.status, described.text).toBe(200);
  expect((await subjectCall(request.token, 'POST', '/subject/open')).status).toBe(200);
  const sealTo = await Promise.all(
    described.body.recipients.map(async (r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
  );
  const { envelope } = await seal(JSON.stringify({ credential: 'Tr0ub4dor&3' }), sealTo, request.id);
  return { ...request, envelope };
};

const submittedRequest = async () => {
  const request = await openedWithEnvelope();
  const submitted = await subjectCall(request.token, 'POST', '/subject/submit', { envelope: request.envelope, attachments: [] });
  expect(submitted.status, submitted.text).toBe(200);
  return request;
};

let ticketCount = 0;
let webhookCount = 0;

interface WritePath {
  name: string;
  /** What the call needs, made before any fault is injected. */
  prepare(): Promise<any>;
  call(prepared: any): Promise<ApiAnswer>;
  status: number;
  /** The audit entries one successful call appends. */
  entries: number;
}

const PATHS: WritePath[] = [
  {
    name: 'POST /v1/requests',
    prepare: async () => null,
    call: () => service.call('POST', '/requests', { key: org.key, body: createBody() }),
    status: 201,
    entries: 1,
  },
  {
    name: 'POST /v1/requests/{id}/revoke',
    prepare: () => createRequest(),
    call: ({ id }) => service.call('POST', `/requests/${id}/revoke`, { key: org.key }),
    status: 200,
    entries: 1,
  },
  {
    name: 'POST /v1/requests/{id}/complete',
    prepare: () => submittedRequest(),
    call: ({ id }) => service.call('POST', `/requests/${id}/complete`, { key: org.key }),
    status: 200,
    entries: 1,
  },
  {
    name: 'POST /v1/tickets/{ref}/status',
    prepare: async () => {
      const ref = `FAULT-${++ticketCount}`;
      await createRequest({ ticket_ref: ref });
      return { ref };
    },
    call: ({ ref }) => service.call('POST', `/tickets/${ref}/status`, { key: org.key, body: { status: 'pending' } }),
    status: 202,
    entries: 1,
  },
  {
    name: 'POST /v1/webhooks',
    prepare: async () => null,
    call: () => service.call('POST', '/webhooks', { key: org.key, body: { url: `https://hooks.example.com/fault-${++webhookCount}`, events: ['request.created'] } }),
    status: 201,
    entries: 1,
  },
  {
    name: 'DELETE /v1/webhooks/{id}',
    prepare: async () => {
      const created = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/doomed', events: ['request.created'] } });
      expect(created.status, created.text).toBe(201);
      return { id: created.body.id };
    },
    call: ({ id }) => service.call('DELETE', `/webhooks/${id}`, { key: org.key }),
    status: 204,
    entries: 1,
  },
  {
    name: 'POST /subject/submit',
    prepare: () => openedWithEnvelope(),
    call: ({ token, envelope }) => subjectCall(token, 'POST', '/subject/submit', { envelope, attachments: [] }),
    status: 200,
    entries: 1,
  },
  {
    name: 'POST /app/api/requests/{id}/complete',
    prepare: async () => {
      await owner(); // signed in before the table is compared: signing in writes its own items
      return submittedRequest();
    },
    call: async ({ id }) => (await owner()).call('POST', `/app/api/requests/${id}/complete`),
    status: 200,
    entries: 1,
  },
  {
    name: 'POST /app/api/shares',
    prepare: async () => {
      await owner();
      return shareMaterial();
    },
    call: async ({ envelope, fingerprint }) =>
      (await owner()).call('POST', '/app/api/shares', { body: { envelope, sealed_to_fingerprint: fingerprint, view_limit: 2 } }),
    status: 201,
    entries: 1,
  },
  {
    name: 'POST /share/open',
    prepare: async () => createShareAs(await owner(), { view_limit: 2 }),
    call: ({ token }) => service.call('POST', '/share/open', { headers: { 'X-Share-Token': token } }),
    status: 200,
    entries: 1,
  },
];

/**
 * The kinds of failure a write can meet, each on the transaction that carries the change: one of
 * DynamoDB's three throttling errors (taken in turn, so each path meets one and each error several
 * paths), a cancellation by a conflicting transaction, and a dropped connection, before the call
 * reached the table or after it was applied. The real timeouts (`hang`), which take the client's
 * timeout to notice, run on the create below.
 */
const THROTTLING: FaultKind[] = ['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'];
const PERSISTENT = (index: number): FaultKind[] => [THROTTLING[index % THROTTLING.length], 'TransactionConflict', 'reset'];
/** A single conflict is retried by the audit log whatever the path, so the create alone shows it (and the unit tests the bound). */
const ONCE = (index: number): FaultKind[] => [THROTTLING[(index + 1) % THROTTLING.length], 'reset-after-apply', ...(index === 0 ? ['TransactionConflict' as const] : [])];

/** Every transaction fails: a 503 and an untouched table; then the client's retry makes the change once. */
const refusedThenRetried = async (path: WritePath, fault: FaultKind) => {
  const prepared = await path.prepare();
  const before = await snapshot();
  const chainBefore = await chain();

  proxy.inject({ operation: 'TransactWriteItems', fault });
  const refused = await path.call(prepared);
  const failed = proxy.failed();
  proxy.clear();

  expect(failed, 'the fault was met').toBeGreaterThan(0);
  expectUnavailable(refused);
  expectSameTable(before, await snapshot());
  expect(await chain()).toEqual(chainBefore);

  const retried = await path.call(prepared);
  expect(retried.status, retried.text).toBe(path.status);
  expect((await chain()).length - chainBefore.length, 'one entry per change').toBe(path.entries);
};

/** One transaction fails: the SDK's or the audit log's own retry carries the call, and the change is made once. */
const carriedThroughOne = async (path: WritePath, fault: FaultKind) => {
  const prepared = await path.prepare();
  const chainBefore = await chain();
  proxy.inject({ operation: 'TransactWriteItems', fault, times: 1 });
  const answer = await path.call(prepared);
  const failed = proxy.failed();
  proxy.clear();
  expect(failed, 'the fault was met').toBe(1);
  expect(answer.status, answer.text).toBe(path.status);
  expect((await chain()).length - chainBefore.length, 'one entry per change').toBe(path.entries);
};

describe.each(PATHS.map((path, index) => ({ ...path, index })))('$name', (path) => {
  it.each(PERSISTENT(path.index))('answers 503 with Retry-After and writes nothing while every transaction fails with %s; the retry then succeeds once', (fault) =>
    refusedThenRetried(path, fault),
  );
  it.each(ONCE(path.index))('succeeds when one transaction fails with %s, and makes the change once', (fault) => carriedThroughOne(path, fault));
});

describe('a transaction that never answers (the client times out)', () => {
  const create = PATHS[0];
  it('answers 503 while every attempt times out, and the retry succeeds once', () => refusedThenRetried(create, 'hang'));
  it('succeeds when one attempt times out', () => carriedThroughOne(create, 'hang'));
  it('succeeds once when the first attempt was applied but its answer never came (the retry carries the same ClientRequestToken)', () =>
    carriedThroughOne(create, 'hang-after-apply'));
});

describe('an Idempotency-Key across a 503', () => {
  const post = (key: string) => service.call('POST', '/requests', { key: org.key, body: createBody({ ticket_ref: key }), headers: { 'Idempotency-Key': key } });

  it('does not keep the 503: the retry with the same key runs, and the one after replays it', async () => {
    const key = `fault-${Date.now()}-a`;
    const chainBefore = await chain();
    proxy.inject({ operation: 'TransactWriteItems', fault: 'ThrottlingException' });
    const refused = await post(key);
    proxy.clear();
    expectUnavailable(refused);

    const created = await post(key);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('idempotency-replayed')).toBeNull();
    const replayed = await post(key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.body.request.id).toBe(created.body.request.id);
    const entries = await chain();
    expect(entries.length - chainBefore.length, 'one request created').toBe(1);
  });

  it('answers 409 with Retry-After while a claim that could not be released is held', async () => {
    const key = `fault-${Date.now()}-b`;
    proxy.inject({ operation: 'TransactWriteItems', fault: 'ThrottlingException' }, { operation: 'DeleteItem', fault: 'ThrottlingException' });
    const refused = await post(key);
    proxy.clear();
    expectUnavailable(refused);

    const early = await post(key);
    expectError(early, 409, 'conflict');
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(early.headers.get('retry-after'))).toBeLessThanOrEqual(30);
  });

  /**
   * The change and its replay commit in one transaction (store/idempotent-commit.ts): when every
   * attempt's answer is lost after the table applied it, the caller gets a 503, the key is not
   * released, and the retry replays the creation (secrets null, as every replay) instead of
   * making a second request.
   */
  it('does not create a second request when the first committed but every answer was lost; the retry replays it', async () => {
    const key = `fault-${Date.now()}-c`;
    const chainBefore = await chain();
    proxy.inject({ operation: 'TransactWriteItems', fault: 'hang-after-apply' });
    const lost = await post(key);
    proxy.clear();
    expectUnavailable(lost);

    const retried = await post(key);
    const entries = await chain();
    const created = entries.slice(chainBefore.length).filter((entry) => entry.type === 'request.created');
    expect(created, 'one request created').toHaveLength(1);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.body.request.id).toBe(created[0]!.requestId);
    expect(retried.headers.get('location')).toBe(retried.body.request.links.self);
    expect(retried.body).toMatchObject({ link: null, link_without_fragment: null, challenge_code: null });
  });

  it('replays a revoke that committed but whose every answer was lost, instead of answering 409', async () => {
    const created = await service.call('POST', '/requests', { key: org.key, body: createBody() });
    expect(created.status).toBe(201);
    const key = `fault-${Date.now()}-r`;
    const revoke = () => service.call('POST', `/requests/${created.body.request.id}/revoke`, { key: org.key, headers: { 'Idempotency-Key': key } });
    const chainBefore = await chain();
    proxy.inject({ operation: 'TransactWriteItems', fault: 'hang-after-apply' });
    expectUnavailable(await revoke());
    proxy.clear();

    const retried = await revoke();
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.body).toMatchObject({ id: created.body.request.id, status: 'revoked' });
    expect((await chain()).slice(chainBefore.length).map((entry) => entry.type)).toEqual(['request.revoked']);
  });

  it('does not create a second webhook when the first committed but every answer was lost; the retry replays it with the secret null', async () => {
    const key = `fault-${Date.now()}-d`;
    const webhook = () =>
      service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://receiver.example/hook', events: ['request.created'] }, headers: { 'Idempotency-Key': key } });
    const webhooks = async () => (await service.call('GET', '/webhooks', { key: org.key })).body.data as Array<{ id: string }>;
    const before = await webhooks();
    const chainBefore = await chain();
    proxy.inject({ operation: 'TransactWriteItems', fault: 'hang-after-apply' });
    expectUnavailable(await webhook());
    proxy.clear();

    const retried = await webhook();
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.body.secret).toBeNull();
    const after = await webhooks();
    expect(after.map((w) => w.id).sort()).toEqual([...before.map((w) => w.id), retried.body.id].sort());
    expect((await chain()).length - chainBefore.length, 'one webhook.created entry').toBe(1);
  });

  it('does not store a second share when the first committed but every answer was lost; the retry replays it with the link null', async () => {
    const browser = await owner();
    const key = `fault-${Date.now()}-s`;
    const material = shareMaterial();
    const share = () =>
      browser.call('POST', '/app/api/shares', { body: { envelope: material.envelope, sealed_to_fingerprint: material.fingerprint }, headers: { 'Idempotency-Key': key } });
    const chainBefore = await chain();
    proxy.inject({ operation: 'TransactWriteItems', fault: 'hang-after-apply' });
    expectUnavailable(await share());
    proxy.clear();

    const retried = await share();
    const created = (await chain()).slice(chainBefore.length).filter((entry) => entry.type === 'share.created');
    expect(created, 'one share stored').toHaveLength(1);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.body.link).toBeNull();
    expect(retried.headers.get('location')).toMatch(new RegExp(`/app/api/shares/${retried.body.share.id}$`));
  });
});
