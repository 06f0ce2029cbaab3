import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../web/crypto/envelope.ts';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import { WriteConflict } from '../../lambdas/core/errors.ts';
import { purgeRequest } from '../../lambdas/core/use-cases/tickets/purge-request.ts';
import { auditEntriesOfRequest } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * A credential submitted after its ticket was closed: when the organisation keeps unsubmitted links
 * alive on a close, the close that came first must still destroy what is submitted later (SPEC.md:
 * "When the ticket is closed ... the stored credential is destroyed"), as no second close comes.
 * Driven over real HTTP, the subject's envelope sealed with the browser's own code.
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const organisation = async (name: string, ticket: { trustUnverifiedWebhooks: boolean; gracePeriodMinutes: number }, rotationSignal = false) => {
  const org = await service.createOrganisation({ name });
  await service.admin.setPolicy(org.orgId, { rotationSignal, ticket: { ...ticket, closeStatuses: ['resolved', 'closed'], revokeUnsubmittedOnClose: false } });
  return org;
};

/** A request quoting `ref`, closed through POST /v1/tickets/{ref}/status while pending, then submitted by its subject. */
const closedThenSubmitted = async (org: TestOrganisation, ref: string, beforeSubmit: () => void = () => undefined) => {
  const created = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], ticket_ref: ref, verification_mode: 'none' },
  });
  expect(created.status, created.text).toBe(201);
  const id: string = created.body.request.id;
  const token = new URL(created.body.link).pathname.split('/').pop()!;
  const closed = await service.call('POST', `/tickets/${ref}/status`, { key: org.key, body: { status: 'closed' } });
  expect(closed.status, closed.text).toBe(202);
  expect((await service.call('GET', `/requests/${id}`, { key: org.key })).body.status).toBe('pending');

  const subject = (method: string, path: string, body?: unknown) => service.call(method, path, { headers: { 'X-Link-Token': token }, body });
  const described = await subject('GET', '/subject/request');
  const sealTo = await Promise.all(
    described.body.recipients.map(async (r: { membership_id: string; public_key: string }) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
  );
  const { envelope } = await seal(JSON.stringify({ credential: 'Submitted-after-close-1' }), sealTo, id);
  beforeSubmit();
  const submitted = await subject('POST', '/subject/submit', { envelope, attachments: [] });
  expect(submitted.status, submitted.text).toBe(200);
  return id;
};

const materialOf = async (id: string) =>
  ((await service.deps.db.send(new QueryCommand({ TableName: service.deps.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `REQ#${id}` } }))).Items ?? []).filter((item) =>
    String(item.sk).startsWith('MATERIAL#'),
  );

describe('a credential submitted after its ticket was closed', () => {
  it('is destroyed at once when the close was trusted and there is no grace period, audited by the system', async () => {
    const org = await organisation('Closed Before Org', { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 }, true);
    const id = await closedThenSubmitted(org, 'LATE-1');
    const request = (await service.call('GET', `/requests/${id}`, { key: org.key })).body;
    expect(request).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed', ticket: { ref: 'LATE-1', status: 'closed' } });
    expect(await materialOf(id)).toEqual([]);
    const events = (await service.call('GET', '/events?types=request.completed', { key: org.key })).body.data;
    expect(events.find((event: { data: { request: { id: string } } }) => event.data.request.id === id)?.data).toMatchObject({
      actor: { type: 'system', label: 'ticket closed before submission' },
      details: { purge_reason: 'ticket_closed', ticket_ref: 'LATE-1', ticket_status: 'closed' },
    });
    // With the policy's rotation signal on, the completion is followed by its recommendation, in the same transaction.
    const rotation = (await service.call('GET', '/events?types=credential.rotation_recommended', { key: org.key })).body.data;
    expect(rotation.find((event: { data: { request: { id: string } } }) => event.data.request.id === id)?.data.details).toMatchObject({ reason: 'credential_handed_over', purge_reason: 'ticket_closed' });
  });

  it('is scheduled for destruction at the end of the grace period', async () => {
    const org = await organisation('Closed Before Grace Org', { trustUnverifiedWebhooks: true, gracePeriodMinutes: 30 });
    const id = await closedThenSubmitted(org, 'LATE-2');
    const request = (await service.call('GET', `/requests/${id}`, { key: org.key })).body;
    expect(request.status).toBe('submitted');
    expect(Date.parse(request.purge_scheduled_at) - Date.parse(request.submitted_at)).toBeGreaterThanOrEqual(30 * 60_000 - 1_000);
    expect(await materialOf(id)).toHaveLength(1);
  });

  /** Every change of a request after its submission loses its race, as under a burst of other changes to it. */
  const contendedAfterSubmission = () => {
    const requests = service.deps.requests;
    const update = requests.update.bind(requests);
    requests.update = async () => {
      throw new WriteConflict('another change took the request');
    };
    return () => void (requests.update = update);
  };

  /** closedThenSubmitted, every change after the submission itself losing its race. */
  const submittedUnderContention = async (org: TestOrganisation, ref: string) => {
    let restore = () => undefined;
    try {
      return await closedThenSubmitted(org, ref, () => void (restore = contendedAfterSubmission()));
    } finally {
      restore();
    }
  };

  it('with no grace period, stays due for destruction when the completion after it is lost to contention: the subject is told it was sent, the sweep destroys it', async () => {
    const org = await organisation('Closed Contended Org', { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 });
    const id = await submittedUnderContention(org, 'LATE-4');
    const request = (await service.call('GET', `/requests/${id}`, { key: org.key })).body;
    // Not kept: due at once (no reveal from its due time on), whatever happens to the follow-up.
    expect(request).toMatchObject({ status: 'submitted', purge_scheduled_at: request.submitted_at });
    expect(await service.asWorker('purge', () => purgeRequest(service.deps, id))()).toBe('purged');
    expect((await service.call('GET', `/requests/${id}`, { key: org.key })).body).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed' });
    expect(await materialOf(id)).toEqual([]);
  });

  it('with a grace period, schedules the purge in the submission itself, so a lost follow-up loses nothing', async () => {
    const org = await organisation('Closed Contended Grace Org', { trustUnverifiedWebhooks: true, gracePeriodMinutes: 30 });
    const id = await submittedUnderContention(org, 'LATE-5');
    const request = (await service.call('GET', `/requests/${id}`, { key: org.key })).body;
    expect(Date.parse(request.purge_scheduled_at) - Date.parse(request.submitted_at)).toBe(30 * 60_000);
    const entries = (await auditEntriesOfRequest(service, org.orgId, id)).filter((entry) => ['request.submitted', 'request.purge_scheduled'].includes(entry.type));
    // One transaction: the same instant, one after the other in the chain.
    expect(entries.map((entry) => [entry.type, entry.seq - entries[0]!.seq])).toEqual([
      ['request.submitted', 0],
      ['request.purge_scheduled', 1],
    ]);
    expect(entries[0]!.occurredAt).toBe(entries[1]!.occurredAt);
  });

  it('is kept when the close was not trusted', async () => {
    const org = await organisation('Closed Untrusted Org', { trustUnverifiedWebhooks: false, gracePeriodMinutes: 0 });
    const id = await closedThenSubmitted(org, 'LATE-3');
    expect((await service.call('GET', `/requests/${id}`, { key: org.key })).body).toMatchObject({ status: 'submitted', purge_scheduled_at: null });
    expect(await materialOf(id)).toHaveLength(1);
  });
});
