import type { Server } from 'node:http';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import type { Clock } from '../../lambdas/core/clock.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { AppDeps } from '../../lambdas/app-deps.ts';
import { createGateway, listen } from '../../lambdas/local/gateway.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { auditEntries as auditEntriesOf, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * SPEC.md Idempotency rules 1 to 3, on every POST, over real HTTP:
 * 1. the same key and body replays the stored answer: same status and Location, plus
 *    `Idempotency-Replayed: true`;
 * 2. secret fields are null in a replay; retrying without the key creates a new request;
 * 3. the same key with another body answers 422 `idempotency_key_reused`, a concurrent
 *    duplicate 409 `conflict`.
 */
let service: TestService;
let org: TestOrganisation;
/** The service's clock runs with real time, shifted by this much (for the 24-hour retention). */
let clockOffsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + clockOffsetMs) };

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation();
});
afterAll(() => service?.stop());

const body = (o: TestOrganisation = org, extra: Record<string, unknown> = {}) => ({
  subject_name: 'Ida Empotent',
  justification: 'Needs the router admin password',
  recipients: [o.owner.email, o.member.email],
  ...extra,
});
const uniqueKey = (label: string) => `${label}-${newId()}`;
const post = (path: string, options: { key?: string; body?: unknown; idempotencyKey?: string; rawBody?: string }) =>
  service.call('POST', path, {
    key: options.key ?? org.key,
    body: options.body,
    rawBody: options.rawBody,
    headers: options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey },
  });

const replayed = (answer: ApiAnswer) => answer.headers.get('Idempotency-Replayed');

const requestItems = (orgId: string) => requestItemsOf(service, orgId);
/** Audit entries of an organisation of one type, straight from the table. */
const auditEntries = async (orgId: string, type: string) => (await auditEntriesOf(service, orgId)).filter((item) => item.type === type);



/** The table key of the idempotency record of (API key secret, Idempotency-Key). */
const recordKey = async (secret: string, idempotencyKey: string) => {
  const apiKey = await service.deps.apiKeys.findByHash(apiKeyHash(secret));
  return keys.idempotency(apiKey!.id, sha256Hex(idempotencyKey));
};

/** Puts an idempotency record back in progress, locked until `lockedUntil` (ms), as a running attempt leaves it. */
const markInProgress = async (secret: string, idempotencyKey: string, lockedUntil: number) => {
  await service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: await recordKey(secret, idempotencyKey),
      UpdateExpression: 'SET #status = :inProgress, lockedUntil = :until REMOVE #response',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
      ExpressionAttributeValues: { ':inProgress': 'in_progress', ':until': lockedUntil },
    }),
  );
};

/** Moves a request to `submitted` in the table (the subject's submission is not part of the API). */
const markSubmitted = async (requestId: string) => {
  await service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: keys.request(requestId),
      UpdateExpression: 'SET #status = :submitted, submittedAt = :at',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':submitted': 'submitted', ':at': new Date().toISOString() },
    }),
  );
};

describe('POST /requests replays', () => {
  it('replays status, Location and body with the secret fields null, and creates nothing more', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('create');
    const first = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeNull();
    const id = first.body.request.id as string;
    expect(first.headers.get('Location')).toBe(`${service.baseUrl}/requests/${id}`);
    // The original shows the secrets (the default policy asks for a spoken challenge code).
    expect(first.body.link).toBe(`${first.body.link_without_fragment}#${first.body.commit}`);
    expect(first.body.link_without_fragment).toMatch(/\/r\/[A-Za-z0-9_-]{43}$/);
    expect(first.body.challenge_code).toMatch(/^[0-9]{6}$/);

    for (let attempt = 0; attempt < 2; attempt++) {
      const again = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
      expect(again.status).toBe(201);
      expect(replayed(again)).toBe('true');
      expect(again.headers.get('Location')).toBe(first.headers.get('Location'));
      expect(again.headers.get('Content-Type')).toMatch(/^application\/json/);
      // As uncacheable as the first answer: it still holds the whole request record.
      expect(first.headers.get('Cache-Control')).toBe('no-store');
      expect(again.headers.get('Cache-Control')).toBe('no-store');
      expect(again.body).toEqual({ ...first.body, link: null, link_without_fragment: null, challenge_code: null });
    }
    // The same body with its fields in another order and other spacing is the same body.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body(o)).reverse()), null, 2);
    const third = await service.call('POST', '/requests', {
      key: o.key,
      rawBody: reordered,
      headers: { 'Idempotency-Key': idempotencyKey, 'Content-Type': 'application/json' },
    });
    expect(third.status).toBe(201);
    expect(replayed(third)).toBe('true');
    expect(third.body.request.id).toBe(id);

    expect((await requestItems(o.orgId)).map((item) => item.id)).toEqual([id]);
    expect(await auditEntries(o.orgId, 'request.created')).toHaveLength(1);
    // The replayed request matches what GET answers.
    expect((await service.call('GET', `/requests/${id}`, { key: o.key })).body).toEqual(third.body.request);
  });

  it('retrying without the key creates a new request each time', async () => {
    const o = await service.createOrganisation();
    const a = await post('/requests', { key: o.key, body: body(o) });
    const b = await post('/requests', { key: o.key, body: body(o) });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(replayed(a)).toBeNull();
    expect(replayed(b)).toBeNull();
    expect(a.body.request.id).not.toBe(b.body.request.id);
    expect(b.body.link).not.toBe(a.body.link);
    expect(b.body.link).toMatch(/^http/);
    expect(await requestItems(o.orgId)).toHaveLength(2);
  });

  it('the same Idempotency-Key under another API key is independent', async () => {
    const o = await service.createOrganisation();
    const otherKey = await service.createKey(o.orgId, { name: 'Second key' });
    const idempotencyKey = uniqueKey('shared');
    const a = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    // Another body is no reuse either: the key's record belongs to the other API key.
    const b = await post('/requests', { key: otherKey, body: body(o, { subject_name: 'Other Person' }), idempotencyKey });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(replayed(b)).toBeNull();
    expect(b.body.request.id).not.toBe(a.body.request.id);
    expect(b.body.request.subject.name).toBe('Other Person');
    // Each key replays its own answer.
    const a2 = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    const b2 = await post('/requests', { key: otherKey, body: body(o, { subject_name: 'Other Person' }), idempotencyKey });
    expect(a2.body.request.id).toBe(a.body.request.id);
    expect(b2.body.request.id).toBe(b.body.request.id);
    expect([replayed(a2), replayed(b2)]).toEqual(['true', 'true']);
  });
});

describe('POST /generate replays', () => {
  it('replays the answer with value null', async () => {
    const idempotencyKey = uniqueKey('generate');
    const request = { type: 'password', length: 40, symbols: true };
    const first = await post('/generate', { body: request, idempotencyKey });
    expect(first.status).toBe(200);
    expect(replayed(first)).toBeNull();
    expect(first.body).toEqual({ object: 'generated_credential', type: 'password', value: expect.any(String), length: 40 });
    expect(first.body.value).toHaveLength(40);

    const again = await post('/generate', { body: request, idempotencyKey });
    expect(again.status).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.headers.get('Location')).toBeNull();
    expect(again.headers.get('Cache-Control')).toBe('no-store');
    expect(again.body).toEqual({ ...first.body, value: null });
  });

  it('replays an answer to a call with no body at all', async () => {
    const idempotencyKey = uniqueKey('generate-empty');
    const first = await post('/generate', { idempotencyKey });
    expect(first.status).toBe(200);
    expect(first.body.value).toHaveLength(20);
    const again = await post('/generate', { idempotencyKey });
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual({ ...first.body, value: null });
  });
});

describe('reuse and validation of the key', () => {
  it('another body with the same key answers 422 idempotency_key_reused and leaves the first answer in place', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('reuse');
    const first = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(first.status).toBe(201);

    const other = await post('/requests', { key: o.key, body: body(o, { subject_name: 'Someone Else' }), idempotencyKey });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ message: expect.any(String), code: 'idempotency_key_reused' });
    expect(replayed(other)).toBeNull();
    // Another endpoint with the same key is another request too.
    const elsewhere = await post('/generate', { key: o.key, body: {}, idempotencyKey });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe('idempotency_key_reused');

    const again = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(again.status).toBe(201);
    expect(again.body.request.id).toBe(first.body.request.id);
    expect(await requestItems(o.orgId)).toHaveLength(1);
  });

  it('a key of 201 characters answers 422 validation_failed keyed Idempotency-Key; 200 characters are accepted', async () => {
    const o = await service.createOrganisation();
    const tooLong = await post('/requests', { key: o.key, body: body(o), idempotencyKey: 'k'.repeat(201) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toEqual({
      message: expect.any(String),
      code: 'validation_failed',
      errors: { 'Idempotency-Key': [expect.any(String)] },
    });
    expect(await requestItems(o.orgId)).toHaveLength(0);

    const longest = `${newId()}${'k'.repeat(174)}`;
    expect(longest).toHaveLength(200);
    const accepted = await post('/requests', { key: o.key, body: body(o), idempotencyKey: longest });
    expect(accepted.status).toBe(201);
    const replay = await post('/requests', { key: o.key, body: body(o), idempotencyKey: longest });
    expect(replayed(replay)).toBe('true');
    expect(replay.body.request.id).toBe(accepted.body.request.id);
    expect(await requestItems(o.orgId)).toHaveLength(1);
  });

  it('a 4xx answer is kept and replayed too', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('invalid');
    const invalid = { subject_name: 'J', justification: 'short', recipients: [] };
    const first = await post('/requests', { key: o.key, body: invalid, idempotencyKey });
    expect(first.status).toBe(422);
    expect(first.body.code).toBe('validation_failed');
    expect(Object.keys(first.body.errors).sort()).toEqual(['justification', 'recipients', 'subject_name']);
    expect(replayed(first)).toBeNull();

    const again = await post('/requests', { key: o.key, body: invalid, idempotencyKey });
    expect(again.status).toBe(422);
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(first.body);

    // The key is spent on the invalid body: a corrected body needs a new key.
    const corrected = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(corrected.status).toBe(422);
    expect(corrected.body.code).toBe('idempotency_key_reused');
    expect(await requestItems(o.orgId)).toHaveLength(0);
  });
});

describe('a body left out and {}', () => {
  it('are one body: either replays the other under the same key, and any other body answers 422 idempotency_key_reused', async () => {
    const o = await service.createOrganisation();
    const idOf = async () => (await post('/requests', { key: o.key, body: body(o) })).body.request.id as string;
    const [left, right] = [await idOf(), await idOf()];

    const noneFirst = uniqueKey('revoke-none');
    const first = await post(`/requests/${left}/revoke`, { key: o.key, idempotencyKey: noneFirst });
    expect(first.status).toBe(200);
    const withEmpty = await post(`/requests/${left}/revoke`, { key: o.key, body: {}, idempotencyKey: noneFirst });
    expect(withEmpty.status).toBe(200);
    expect(replayed(withEmpty)).toBe('true');
    expect(withEmpty.body).toEqual(first.body);

    const emptyFirst = uniqueKey('revoke-empty');
    const second = await post(`/requests/${right}/revoke`, { key: o.key, body: {}, idempotencyKey: emptyFirst });
    expect(second.status).toBe(200);
    for (const rawBody of [undefined, '']) {
      const withNone = await post(`/requests/${right}/revoke`, { key: o.key, rawBody, idempotencyKey: emptyFirst });
      expect(withNone.status).toBe(200);
      expect(replayed(withNone)).toBe('true');
      expect(withNone.body).toEqual(second.body);
    }
    for (const rawBody of ['{"reason":"left"}', 'null', '[]']) {
      const other = await post(`/requests/${right}/revoke`, { key: o.key, rawBody, idempotencyKey: emptyFirst });
      expect(other.status, rawBody).toBe(422);
      expect(other.body.code, rawBody).toBe('idempotency_key_reused');
    }

    expect((await auditEntries(o.orgId, 'request.revoked')).map((e) => e.requestId).sort()).toEqual([left, right].sort());
  });
});

describe('a record kept before a body left out was taken as {}', () => {
  /** Makes a record as it was written when a missing body was fingerprinted as `null`. */
  const asKeptBefore = async (secret: string, idempotencyKey: string, path: string) => {
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: await recordKey(secret, idempotencyKey),
        UpdateExpression: 'SET fingerprint = :former REMOVE emptyBodyAsObject',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':former': sha256Hex(`POST /v1${path}\nnull`) },
      }),
    );
  };

  it('still replays the same call sent with no body or with {}, and another body answers 422 idempotency_key_reused', async () => {
    const o = await service.createOrganisation();
    const id = (await post('/requests', { key: o.key, body: body(o) })).body.request.id as string;
    const path = `/requests/${id}/revoke`;
    const idempotencyKey = uniqueKey('revoke-kept-before');
    const first = await post(path, { key: o.key, idempotencyKey });
    expect(first.status).toBe(200);
    await asKeptBefore(o.key, idempotencyKey, path);

    for (const rawBody of [undefined, '{}']) {
      const retry = await post(path, { key: o.key, rawBody, idempotencyKey });
      expect(retry.status, rawBody).toBe(200);
      expect(replayed(retry), rawBody).toBe('true');
      expect(retry.body).toEqual(first.body);
    }
    for (const rawBody of ['{"reason":"left"}', '[]']) {
      const other = await post(path, { key: o.key, rawBody, idempotencyKey });
      expect(other.status, rawBody).toBe(422);
    }
  });

  it('a record kept since holding the fingerprint of null is another body to a call sent with none', async () => {
    const o = await service.createOrganisation();
    const id = (await post('/requests', { key: o.key, body: body(o) })).body.request.id as string;
    const path = `/requests/${id}/revoke`;
    const idempotencyKey = uniqueKey('revoke-null');
    const first = await post(path, { key: o.key, rawBody: 'null', idempotencyKey });
    const retry = await post(path, { key: o.key, idempotencyKey });
    expect(retry.status, String(first.status)).toBe(422);
    expect(retry.body.code).toBe('idempotency_key_reused');
  });
});

describe('retention', () => {
  it('replays for 24 hours; after that the same key and body run again', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('day');
    const first = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(first.status).toBe(201);
    try {
      clockOffsetMs = 24 * 60 * 60_000 - 60_000;
      const late = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
      expect(replayed(late)).toBe('true');
      expect(late.body.request.id).toBe(first.body.request.id);

      clockOffsetMs = 24 * 60 * 60_000 + 1_000;
      const expired = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
      expect(expired.status).toBe(201);
      expect(replayed(expired)).toBeNull();
      expect(expired.body.link).toMatch(/^http/);
      expect(expired.body.request.id).not.toBe(first.body.request.id);
      const again = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
      expect(again.body.request.id).toBe(expired.body.request.id);
      expect(replayed(again)).toBe('true');
    } finally {
      clockOffsetMs = 0;
    }
    expect(await requestItems(o.orgId)).toHaveLength(2);
  });
});

describe('concurrent duplicates', () => {
  it('answers 409 conflict while the first attempt is in progress, and takes over a stale claim', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('busy');
    const first = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(first.status).toBe(201);

    // As if the first attempt were still running (its claim is locked for another 30 s).
    await markInProgress(o.key, idempotencyKey, Date.now() + 30_000);
    const busy = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ message: expect.any(String), code: 'conflict' });
    expect(replayed(busy)).toBeNull();
    // A different body is still a reuse of the key.
    const reuse = await post('/requests', { key: o.key, body: body(o, { subject_name: 'Someone Else' }), idempotencyKey });
    expect(reuse.status).toBe(422);
    expect(reuse.body.code).toBe('idempotency_key_reused');
    expect(await requestItems(o.orgId)).toHaveLength(1);

    // As if that attempt had crashed: its lock has lapsed, so the next attempt runs afresh.
    await markInProgress(o.key, idempotencyKey, Date.now() - 1_000);
    const takeover = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(takeover.status).toBe(201);
    expect(replayed(takeover)).toBeNull();
    expect(takeover.body.link).toMatch(/^http/);
    expect(takeover.body.request.id).not.toBe(first.body.request.id);

    // From now on the takeover's answer is the one replayed.
    const after = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(after.status).toBe(201);
    expect(replayed(after)).toBe('true');
    expect(after.headers.get('Location')).toBe(takeover.headers.get('Location'));
    expect(after.body.request.id).toBe(takeover.body.request.id);
    expect(after.body.link).toBeNull();
  });

  it('50 identical POST /v1/requests at once with one key create exactly one request', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('storm');
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post('/requests', { key: o.key, body: body(o), idempotencyKey })),
    );
    const elapsed = Date.now() - started;

    const originals = answers.filter((a) => a.status === 201 && replayed(a) === null);
    const replays = answers.filter((a) => a.status === 201 && replayed(a) === 'true');
    const conflicts = answers.filter((a) => a.status === 409);
    expect(originals).toHaveLength(1);
    expect(replays.length + conflicts.length).toBe(49);
    const [original] = originals;
    expect(original.body.link).toMatch(/^http/);
    for (const replay of replays) {
      expect(replay.headers.get('Location')).toBe(original.headers.get('Location'));
      expect(replay.body).toEqual({ ...original.body, link: null, link_without_fragment: null, challenge_code: null });
    }
    for (const conflict of conflicts) expect(conflict.body.code).toBe('conflict');

    const items = await requestItems(o.orgId);
    expect(items.map((item) => item.id)).toEqual([original.body.request.id]);
    const created = await auditEntries(o.orgId, 'request.created');
    expect(created.map((entry) => entry.requestId)).toEqual([original.body.request.id]);
    console.info(`50 concurrent duplicates: ${replays.length} replays, ${conflicts.length} conflicts, ${elapsed} ms`);
  });
});

describe('revoke and complete', () => {
  it('a repeated revoke with the same key replays the stored 200 instead of 409', async () => {
    const o = await service.createOrganisation();
    const created = await post('/requests', { key: o.key, body: body(o) });
    const id = created.body.request.id as string;
    const idempotencyKey = uniqueKey('revoke');

    const first = await post(`/requests/${id}/revoke`, { key: o.key, idempotencyKey });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('revoked');
    const again = await post(`/requests/${id}/revoke`, { key: o.key, idempotencyKey });
    expect(again.status).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(first.body);

    // Without the key the second revoke is a new operation, which the state refuses.
    const fresh = await post(`/requests/${id}/revoke`, { key: o.key });
    expect(fresh.status).toBe(409);
    expect(fresh.body.code).toBe('illegal_transition');
    // The same key on another request is another request.
    const other = await post('/requests', { key: o.key, body: body(o) });
    const elsewhere = await post(`/requests/${other.body.request.id}/revoke`, { key: o.key, idempotencyKey });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe('idempotency_key_reused');

    expect((await auditEntries(o.orgId, 'request.revoked')).map((e) => e.requestId)).toEqual([id]);
  });

  it('a repeated complete with the same key replays the stored 200 instead of 409', async () => {
    const o = await service.createOrganisation();
    const created = await post('/requests', { key: o.key, body: body(o) });
    const id = created.body.request.id as string;
    await markSubmitted(id);
    const idempotencyKey = uniqueKey('complete');

    const first = await post(`/requests/${id}/complete`, { key: o.key, idempotencyKey });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('completed');
    const again = await post(`/requests/${id}/complete`, { key: o.key, idempotencyKey });
    expect(again.status).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(first.body);

    const fresh = await post(`/requests/${id}/complete`, { key: o.key });
    expect(fresh.status).toBe(409);
    expect(fresh.body.code).toBe('illegal_transition');
    expect((await auditEntries(o.orgId, 'request.completed')).map((e) => e.requestId)).toEqual([id]);
  });

  it('a 409 illegal_transition is kept and replayed like any 4xx', async () => {
    const o = await service.createOrganisation();
    const created = await post('/requests', { key: o.key, body: body(o) });
    const id = created.body.request.id as string;
    const idempotencyKey = uniqueKey('complete-pending');
    const first = await post(`/requests/${id}/complete`, { key: o.key, idempotencyKey });
    expect(first.status).toBe(409);
    expect(first.body.code).toBe('illegal_transition');
    // Even once the request could be completed, the key replays its first answer.
    await markSubmitted(id);
    const again = await post(`/requests/${id}/complete`, { key: o.key, idempotencyKey });
    expect(again.status).toBe(409);
    expect(replayed(again)).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await auditEntries(o.orgId, 'request.completed')).toHaveLength(0);
  });
});

describe('a 5xx is not kept', () => {
  let failing: Server;
  let failingBase: string;

  beforeAll(async () => {
    // A second gateway over the same table whose request store is down: creating answers 500.
    const requests = Object.create(service.deps.requests, {
      create: { value: async () => Promise.reject(new Error('simulated store outage')) },
    }) as AppDeps['requests'];
    failing = createGateway({ ...service.deps, requests });
    failingBase = `http://127.0.0.1:${await listen(failing, 0)}/v1`;
  });
  afterAll(() => {
    failing?.closeAllConnections();
    failing?.close();
  });

  it('a retry with the same key after a 500 runs again', async () => {
    const o = await service.createOrganisation();
    const idempotencyKey = uniqueKey('outage');
    // Silences the expected 'unhandled failure' log line.
    const [stdout, stderr] = [process.stdout.write, process.stderr.write];
    process.stdout.write = process.stderr.write = () => true;
    let failed: Response;
    try {
      failed = await fetch(`${failingBase}/requests`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${o.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
        body: JSON.stringify(body(o)),
      });
    } finally {
      [process.stdout.write, process.stderr.write] = [stdout, stderr];
    }
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ message: expect.any(String), code: 'error' });
    // An authenticated call's 500 carries the rate headers too.
    expect(failed.headers.get('X-RateLimit-Limit')).toBe('600');
    expect(failed.headers.get('X-RateLimit-Remaining')).toMatch(/^[0-9]+$/);

    const retry = await post('/requests', { key: o.key, body: body(o), idempotencyKey });
    expect(retry.status).toBe(201);
    expect(replayed(retry)).toBeNull();
    expect(retry.body.link).toMatch(/^http/);
    expect(await requestItems(o.orgId)).toHaveLength(1);
  });
});
