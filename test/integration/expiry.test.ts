/**
 * Expiry against DynamoDB Local through the local service: the expiry worker (as a schedule
 * invokes it) and the sweep, with a fake clock; the store's byDue index; the material deleted in
 * the same transaction; the audit entry; and, at the end, the real local timer firing on its own.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { createHandler as createExpireWorker } from '../../lambdas/workers/expire.ts';
import { createHandler as createSweepWorker } from '../../lambdas/workers/sweep.ts';
import { auditEntriesOfRequest, expectCreationResult, materialItems, requestItem, type RequestObject } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { recordingScheduler } from '../support/schedulers.ts';
import { submitAsSubject } from '../support/submission.ts';

const MINUTE = 60_000;

/** A clock the test moves; it starts at the real time so ids and windows look ordinary. */
const movableClock = () => {
  let now = Date.now();
  return {
    now: () => new Date(now),
    set: (at: string | number) => {
      now = typeof at === 'number' ? at : Date.parse(at);
    },
  } satisfies Clock & Record<string, unknown>;
};

const createVia = async (service: TestService, org: TestOrganisation) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Need the firewall admin password', recipients: [org.owner.email] },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};

const readVia = async (service: TestService, org: TestOrganisation, id: string) => {
  const answer = await service.call('GET', `/requests/${id}`, { key: org.key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as RequestObject;
};

describe('expiry with a fake clock', () => {
  const clock = movableClock();
  const recorded = recordingScheduler();
  let service: TestService;
  let org: TestOrganisation;
  let expire: ReturnType<typeof createExpireWorker>;
  let sweep: ReturnType<typeof createSweepWorker>;

  beforeAll(async () => {
    service = await startTestService({ clock, scheduler: recorded.scheduler });
    org = await service.createOrganisation({ name: 'Expiry Org' });
    expire = service.asWorker('expire', createExpireWorker(service.deps));
    sweep = service.asWorker('sweep', createSweepWorker(service.deps));
  });
  afterAll(() => service?.stop());

  /** A request created over the API, then submitted as the subject's browser would, with its ciphertext. */
  const submitted = async () => {
    const created = await createVia(service, org);
    return submitAsSubject(service, created.id, clock, {
      envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] },
      attachments: [{ iv: 'aXY', ciphertext: 'YXR0' }],
    });
  };

  it('arms the expiry at link_expires_at on creation and cancels it on revoke', async () => {
    const request = await createVia(service, org);
    expect(recorded.calls).toContain(`schedule ${request.id} ${request.link_expires_at}`);
    const revoked = await service.call('POST', `/requests/${request.id}/revoke`, { key: org.key });
    expect(revoked.status, revoked.text).toBe(200);
    expect(recorded.calls.at(-1)).toBe(`cancel ${request.id}`);
  });

  it('expires a pending request once its link has expired: status, audit entry, API, index', async () => {
    const request = await createVia(service, org);
    expect(request.status).toBe('pending');
    const due = Date.parse(request.link_expires_at!);

    clock.set(due - 1_000);
    expect(await expire({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'not_due' });
    expect((await readVia(service, org, request.id)).status).toBe('pending');
    expect((await service.deps.dueRequests.dueBy(clock.now())).ids).not.toContain(request.id);

    clock.set(due + 1_000);
    expect((await service.deps.dueRequests.dueBy(clock.now())).ids).toContain(request.id);
    expect(await expire({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'expired' });

    const shown = await readVia(service, org, request.id);
    expect(shown).toMatchObject({ status: 'expired', purge_reason: 'expired', link_expires_at: request.link_expires_at });
    const entries = await auditEntriesOfRequest(service, org.orgId, request.id);
    expect(entries.map((entry) => entry.type)).toEqual(['request.created', 'request.expired']);
    const entry = entries[1]!;
    expect(entry.actor).toEqual({ type: 'system', label: 'expiry' });
    expect(entry.data).toMatchObject({
      request: { id: request.id, status: 'expired' },
      actor: { type: 'system', label: 'expiry' },
      details: { purge_reason: 'expired', previous_status: 'pending' },
    });
    expect(entry.occurredAt).toBe(new Date(due + 1_000).toISOString());
    // Ended: out of the byDue index, and a late or repeated trigger does nothing.
    const item = (await requestItem(service, request.id))!;
    expect(item.gsi5pk).toBeUndefined();
    expect(item.gsi5sk).toBeUndefined();
    expect((await service.deps.dueRequests.dueBy(clock.now())).ids).not.toContain(request.id);
    expect(await expire({ requestId: request.id })).toEqual({ requestId: request.id, outcome: 'ended' });
    expect(await auditEntriesOfRequest(service, org.orgId, request.id)).toHaveLength(2);
  });

  it('expires a submitted request once its record has expired, deleting the envelope and attachments', async () => {
    const request = await submitted();
    expect((await materialItems(service, request.id)).map((item) => item.sk).sort()).toEqual(['MATERIAL#attachment#000', 'MATERIAL#envelope']);
    expect((await requestItem(service, request.id))!.gsi5sk).toBe(`${request.recordExpiresAt}#${request.id}`);

    // Past the link's expiry, the submitted record is kept: only record_expires_at counts now.
    const recordDue = Date.parse(request.recordExpiresAt!);
    clock.set(Math.min(Date.parse(request.linkExpiresAt!) + MINUTE, recordDue - MINUTE));
    expect((await expire({ requestId: request.id })).outcome).toBe('not_due');
    expect(await materialItems(service, request.id)).toHaveLength(2);

    clock.set(recordDue + 1);
    expect((await expire({ requestId: request.id })).outcome).toBe('expired');
    expect(await materialItems(service, request.id)).toEqual([]);
    const shown = await readVia(service, org, request.id);
    expect(shown).toMatchObject({ status: 'expired', purge_reason: 'expired', submitted_at: request.submittedAt, record_expires_at: request.recordExpiresAt });
    const types = (await auditEntriesOfRequest(service, org.orgId, request.id)).map((entry) => entry.type);
    expect(types).toEqual(['request.created', 'request.submitted', 'request.expired']);
    const expiredEntry = (await auditEntriesOfRequest(service, org.orgId, request.id)).at(-1)!;
    expect(expiredEntry.data.details).toEqual({ purge_reason: 'expired', previous_status: 'submitted' });
  });

  it('the sweep expires every due request through the byDue index, with no schedule at all', async () => {
    const [a, b] = [await createVia(service, org), await createVia(service, org)];
    const c = await submitted();
    clock.set(Math.max(Date.parse(a.link_expires_at!), Date.parse(b.link_expires_at!)) + MINUTE);
    const fresh = await createVia(service, org); // created now: its link is still good
    const keptRecord = Date.parse(c.recordExpiresAt!) > clock.now().getTime();

    const summary = await sweep();
    expect(summary).toEqual({ expired: keptRecord ? 2 : 3, purged: 0, failed: 0, sharesExpired: 0 });
    for (const id of [a.id, b.id]) expect((await readVia(service, org, id)).status).toBe('expired');
    expect((await readVia(service, org, fresh.id)).status).toBe('pending');
    expect((await readVia(service, org, c.id)).status).toBe(keptRecord ? 'submitted' : 'expired');

    // Later, the submitted record and the fresh link fall due too; a second sweep gets them.
    clock.set(Math.max(Date.parse(c.recordExpiresAt!), Date.parse(fresh.link_expires_at!)) + MINUTE);
    expect(await sweep()).toEqual({ expired: keptRecord ? 2 : 1, purged: 0, failed: 0, sharesExpired: 0 });
    expect((await readVia(service, org, c.id)).status).toBe('expired');
    expect((await readVia(service, org, fresh.id)).status).toBe('expired');
    expect(await materialItems(service, c.id)).toEqual([]);
    expect(await sweep()).toEqual({ expired: 0, purged: 0, failed: 0, sharesExpired: 0 });
  });
});

describe('expiry with the real local timer', () => {
  let service: TestService;
  let org: TestOrganisation;

  beforeAll(async () => {
    service = await startTestService({ timers: true });
    org = await service.createOrganisation({ name: 'Timer Org' });
  });
  afterAll(() => service?.stop());

  it('expires a request on its own when its link runs out', async () => {
    const request = await createVia(service, org);
    // Policy lifetimes are whole minutes: bring this link's expiry forward to two seconds from now.
    const due = new Date(Date.now() + 2_000).toISOString();
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: { pk: `REQ#${request.id}`, sk: 'REQ' },
        UpdateExpression: 'SET linkExpiresAt = :due, gsi5sk = :dueKey',
        ExpressionAttributeValues: { ':due': due, ':dueKey': `${due}#${request.id}` },
      }),
    );
    await service.deps.scheduler.schedule(request.id, due);
    expect((await readVia(service, org, request.id)).status).toBe('pending');

    const deadline = Date.now() + 10_000;
    let shown = await readVia(service, org, request.id);
    while (shown.status !== 'expired' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      shown = await readVia(service, org, request.id);
    }
    expect(shown.status).toBe('expired');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(due));
    const entries = await auditEntriesOfRequest(service, org.orgId, request.id);
    expect(entries.map((entry) => entry.type)).toEqual(['request.created', 'request.expired']);
    expect(Date.parse(entries[1]!.occurredAt)).toBeGreaterThanOrEqual(Date.parse(due));
  }, 30_000);
});
