/**
 * POST /requests/{id}/revoke and POST /requests/{id}/complete over real HTTP: the transitions
 * SPEC.md allows, 409 illegal_transition for every other state, 404s, and what changed in the
 * table (request item, stored material, audit entry).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditEntriesOfRequest,
  expectCreationResult,
  expectError,
  expectRequest,
  forceRequestState,
  materialItems,
  putMaterial,
  requestItem,
  type RequestObject,
} from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const WRITER_NAME = 'Ending writer key';

let service: TestService;
let org: TestOrganisation;
let writer: string;
let reader: string;
let stranger: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Ending Org' });
  writer = await service.createKey(org.orgId, { scopes: ['requests:write'], name: WRITER_NAME });
  reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Ending reader key' });
  const other = await service.createOrganisation({ name: 'Stranger Org' });
  stranger = await service.createKey(other.orgId, { scopes: ['requests:write', 'requests:read'], name: 'Stranger key' });
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

const createRequest = async (): Promise<RequestObject> => {
  const answer = await service.call('POST', '/requests', {
    key: writer,
    body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [org.owner.email] },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};

/** A request moved into `status` behind the API (as the subject's browser or a timer would). */
const requestIn = async (status: string): Promise<RequestObject> => {
  const request = await createRequest();
  const at = new Date().toISOString();
  const extra: Record<string, unknown> = {};
  if (status === 'opened') extra.openedAt = at;
  if (status === 'submitted') Object.assign(extra, { openedAt: at, submittedAt: at, recordExpiresAt: new Date(Date.now() + 86_400_000).toISOString() });
  if (status === 'expired') extra.linkExpiresAt = at;
  if (status === 'revoked') Object.assign(extra, { revokedAt: at, revokedReason: 'revoked_in_app' });
  if (status === 'completed') Object.assign(extra, { openedAt: at, submittedAt: at, completedAt: at, purgeReason: 'revealed_and_purged' });
  if (status !== 'pending') await forceRequestState(service, org.orgId, request.id, status, extra);
  return request;
};

const revoke = (id: string, key = writer) => service.call('POST', `/requests/${id}/revoke`, { key });
const complete = (id: string, key = writer) => service.call('POST', `/requests/${id}/complete`, { key });
const read = async (id: string) => (await service.call('GET', `/requests/${id}`, { key: reader })).body as RequestObject;
const auditTypes = async (id: string) => (await auditEntriesOfRequest(service, org.orgId, id)).map((e) => e.type);

/** The fields a transition must not touch. */
const unchangedFields = (r: RequestObject) => {
  const {
    status: _s,
    revoked_at: _ra,
    revoked_reason: _rr,
    completed_at: _ca,
    purge_reason: _pr,
    purge_scheduled_at: _ps,
    ...rest
  } = r;
  return rest;
};

describe('POST /requests/{id}/revoke', () => {
  it('revokes a pending request: 200 with the Request, stored, and audited with the key\'s name', async () => {
    const before = await createRequest();
    const startedAt = Date.now();
    const answer = await revoke(before.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const r = expectRequest(answer.body);

    expect(r.status).toBe('revoked');
    expect(Date.parse(r.revoked_at!)).toBeGreaterThanOrEqual(Date.parse(before.created_at));
    expect(Math.abs(Date.parse(r.revoked_at!) - startedAt)).toBeLessThan(60_000);
    expect(typeof r.revoked_reason).toBe('string');
    expect(r.revoked_reason!.length).toBeGreaterThan(0);
    expect(r.completed_at).toBeNull();
    expect(r.purge_reason).toBeNull();
    expect(unchangedFields(r)).toEqual(unchangedFields(before));

    expect(await read(before.id)).toEqual(r);

    const item = await requestItem(service, before.id);
    expect(item!.status).toBe('revoked');
    expect(item!.revokedAt).toBe(r.revoked_at);
    expect(item!.version).toBe(2);

    const entries = await auditEntriesOfRequest(service, org.orgId, before.id);
    expect(entries.map((e) => e.type)).toEqual(['request.created', 'request.revoked']);
    const entry = entries[1];
    expect(entry.sk).toMatch(/^SEQ#\d+$/);
    expect(entry.seq).toBeGreaterThan(entries[0].seq);
    expect(entry.actor).toMatchObject({ type: 'api', label: WRITER_NAME });
    expect(entry.clientId).toBe(org.defaultClientId);
    expect(entry.data.request).toEqual(r);
    expect(entry.data.actor).toEqual({ type: 'api', label: WRITER_NAME });
    expect(entry.data.details).toEqual({ revoked_reason: r.revoked_reason });
  });

  it('revokes an opened request and keeps opened_at', async () => {
    const before = await requestIn('opened');
    const opened = await read(before.id);
    expect(opened.status).toBe('opened');
    const answer = await revoke(before.id);
    expect(answer.status, answer.text).toBe(200);
    const r = expectRequest(answer.body);
    expect(r.status).toBe('revoked');
    expect(r.opened_at).toBe(opened.opened_at);
    expect(r.revoked_at).not.toBeNull();
    expect(await auditTypes(before.id)).toEqual(['request.created', 'request.revoked']);
    expect((await requestItem(service, before.id))!.status).toBe('revoked');
  });

  it.each(['revoked', 'completed', 'expired', 'submitted'])('answers 409 illegal_transition from %s and changes nothing', async (status) => {
    const request = await requestIn(status);
    if (status === 'submitted') await putMaterial(service, request.id, 'MATERIAL#envelope#1', 'envelope');
    const itemBefore = await requestItem(service, request.id);
    const answer = await revoke(request.id);
    expectError(answer, 409, 'illegal_transition');
    expect(await requestItem(service, request.id)).toEqual(itemBefore);
    expect(await auditTypes(request.id)).toEqual(['request.created']);
    if (status === 'submitted') expect((await materialItems(service, request.id)).length).toBe(1);
  });

  it('answers 409 on a second revoke', async () => {
    const request = await createRequest();
    expect((await revoke(request.id)).status).toBe(200);
    expectError(await revoke(request.id), 409, 'illegal_transition');
    expect(await auditTypes(request.id)).toEqual(['request.created', 'request.revoked']);
  });

  it('lets exactly one of two concurrent revokes win', async () => {
    const request = await createRequest();
    const answers = await Promise.all([revoke(request.id), revoke(request.id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('illegal_transition');
    expect(await auditTypes(request.id)).toEqual(['request.created', 'request.revoked']);
    expect((await requestItem(service, request.id))!.version).toBe(2);
  });

  it.each([
    ['an unknown id', '01h00000000000000000000000'],
    ['a malformed id', 'nope'],
  ])('answers 404 not_found for %s', async (_, id) => {
    expectError(await revoke(id), 404, 'not_found');
  });

  it('answers 404 for a request of another organisation and leaves it alone', async () => {
    const request = await createRequest();
    expectError(await revoke(request.id, stranger), 404, 'not_found');
    expect((await requestItem(service, request.id))!.status).toBe('pending');
    expect(await auditTypes(request.id)).toEqual(['request.created']);
  });
});

describe('POST /requests/{id}/complete', () => {
  it('completes a submitted request: purges every MATERIAL# item, sets completed_at and purge_reason, audits', async () => {
    const before = await requestIn('submitted');
    await putMaterial(service, before.id, 'MATERIAL#envelope#1', 'envelope');
    await putMaterial(service, before.id, 'MATERIAL#attachment#1', 'attachment');
    await putMaterial(service, before.id, 'MATERIAL#attachment#2', 'attachment');
    expect((await materialItems(service, before.id)).length).toBe(3);
    const submitted = await read(before.id);
    expect(submitted.status).toBe('submitted');

    const startedAt = Date.now();
    const answer = await complete(before.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const r = expectRequest(answer.body);
    expect(r.status).toBe('completed');
    expect(Math.abs(Date.parse(r.completed_at!) - startedAt)).toBeLessThan(60_000);
    expect(Date.parse(r.completed_at!)).toBeGreaterThanOrEqual(Date.parse(submitted.submitted_at!));
    expect(typeof r.purge_reason).toBe('string');
    expect(r.purge_reason!.length).toBeGreaterThan(0);
    expect(r.purge_scheduled_at).toBeNull();
    expect(r.revoked_at).toBeNull();
    expect(r.revoked_reason).toBeNull();
    expect(r.submitted_at).toBe(submitted.submitted_at);
    expect(unchangedFields(r)).toEqual(unchangedFields(submitted));

    expect(await materialItems(service, before.id)).toEqual([]);
    const item = await requestItem(service, before.id);
    expect(item!.status).toBe('completed');
    expect(item!.completedAt).toBe(r.completed_at);
    expect(item!.purgeReason).toBe(r.purge_reason);
    expect(await read(before.id)).toEqual(r);

    const entries = await auditEntriesOfRequest(service, org.orgId, before.id);
    expect(entries.map((e) => e.type)).toEqual(['request.created', 'request.completed']);
    const entry = entries[1];
    expect(entry.sk).toMatch(/^SEQ#\d+$/);
    expect(entry.actor).toMatchObject({ type: 'api', label: WRITER_NAME });
    expect(entry.data.request).toEqual(r);
    expect(entry.data.actor).toEqual({ type: 'api', label: WRITER_NAME });
    expect(entry.data.details).toEqual({ purge_reason: r.purge_reason });
    expect(JSON.stringify(entry)).not.toContain('ciphertext-');
  });

  it('deletes the material in the same transaction as the state change and the audit entry', async () => {
    const request = await requestIn('submitted');
    await putMaterial(service, request.id, 'MATERIAL#envelope#1', 'envelope');
    await putMaterial(service, request.id, 'MATERIAL#attachment#1', 'attachment');
    const send = vi.spyOn(service.deps.db, 'send');
    expect((await complete(request.id)).status).toBe(200);
    const transactions = send.mock.calls
      .map(([command]) => command as unknown)
      .filter((command): command is TransactWriteCommand => command instanceof TransactWriteCommand)
      .map((command) => command.input.TransactItems ?? []);
    const withDeletes = transactions.filter((items) => items.some((item) => item.Delete));
    expect(withDeletes.length).toBe(1);
    const [items] = withDeletes;
    const deleted = items.filter((item) => item.Delete).map((item) => item.Delete!.Key);
    expect(deleted).toEqual(
      expect.arrayContaining([
        { pk: `REQ#${request.id}`, sk: 'MATERIAL#envelope#1' },
        { pk: `REQ#${request.id}`, sk: 'MATERIAL#attachment#1' },
      ]),
    );
    expect(deleted.length).toBe(2);
    const puts = items.filter((item) => item.Put).map((item) => item.Put!.Item as Record<string, unknown>);
    expect(puts.some((item) => item.pk === `REQ#${request.id}` && item.sk === 'REQ' && item.status === 'completed')).toBe(true);
    expect(puts.some((item) => item.pk === `AUDIT#${org.orgId}` && item.type === 'request.completed')).toBe(true);
  });

  it('completes a submitted request that has no material left, and clears a scheduled purge', async () => {
    const request = await requestIn('submitted');
    await forceRequestState(service, org.orgId, request.id, 'submitted', { purgeScheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await read(request.id)).purge_scheduled_at).not.toBeNull();
    const answer = await complete(request.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.status).toBe('completed');
    expect(answer.body.purge_scheduled_at).toBeNull();
    expect(await auditTypes(request.id)).toEqual(['request.created', 'request.completed']);
  });

  it.each(['pending', 'opened', 'revoked', 'completed', 'expired'])(
    'answers 409 illegal_transition from %s and changes nothing',
    async (status) => {
      const request = await requestIn(status);
      await putMaterial(service, request.id, 'MATERIAL#envelope#1', 'envelope');
      const itemBefore = await requestItem(service, request.id);
      expectError(await complete(request.id), 409, 'illegal_transition');
      expect(await requestItem(service, request.id)).toEqual(itemBefore);
      expect((await materialItems(service, request.id)).length).toBe(1);
      expect(await auditTypes(request.id)).toEqual(['request.created']);
    },
  );

  it('answers 409 on a second complete', async () => {
    const request = await requestIn('submitted');
    expect((await complete(request.id)).status).toBe(200);
    expectError(await complete(request.id), 409, 'illegal_transition');
    expect(await auditTypes(request.id)).toEqual(['request.created', 'request.completed']);
  });

  it('lets exactly one of two concurrent completes win', async () => {
    const request = await requestIn('submitted');
    await putMaterial(service, request.id, 'MATERIAL#envelope#1', 'envelope');
    const answers = await Promise.all([complete(request.id), complete(request.id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await auditTypes(request.id)).toEqual(['request.created', 'request.completed']);
    expect(await materialItems(service, request.id)).toEqual([]);
  });

  it('refuses to revoke a completed request afterwards', async () => {
    const request = await requestIn('submitted');
    expect((await complete(request.id)).status).toBe(200);
    expectError(await revoke(request.id), 409, 'illegal_transition');
  });

  it.each([
    ['an unknown id', '01h00000000000000000000000'],
    ['a malformed id', 'NOT-AN-ID'],
  ])('answers 404 not_found for %s', async (_, id) => {
    expectError(await complete(id), 404, 'not_found');
  });

  it('answers 404 for a request of another organisation and keeps its material', async () => {
    const request = await requestIn('submitted');
    await putMaterial(service, request.id, 'MATERIAL#envelope#1', 'envelope');
    expectError(await complete(request.id, stranger), 404, 'not_found');
    expect((await requestItem(service, request.id))!.status).toBe('submitted');
    expect((await materialItems(service, request.id)).length).toBe(1);
    expect(await auditTypes(request.id)).toEqual(['request.created']);
  });
});
