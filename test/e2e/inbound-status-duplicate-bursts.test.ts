/**
 * A helpdesk that retries delivers the same status post several times at once, to several
 * function instances. Two services over one table stand for two containers: every post answers
 * 202 (or, sharing an Idempotency-Key with one still under way, 409 / a replay), a close destroys
 * once and is audited once, and the posts leave the request in one consistent state.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { startLocalService, type LocalService } from '../../lambdas/local/local-service.ts';
import { auditEntriesOfRequest, requestItem } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let other: LocalService;
let trusting: TestOrganisation;
let plain: TestOrganisation;
let seq = 0;

beforeAll(async () => {
  service = await startTestService();
  other = await startLocalService({
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName: service.deps.tableName,
    outboxDir: mkdtempSync(join(tmpdir(), 'handoff-outbox-')),
    timers: false,
    webhooks: false,
    tableStream: false,
    sealer: service.deps.sealer,
  });
  [trusting, plain] = await Promise.all([service.createOrganisation({ name: 'Trusting' }), service.createOrganisation({ name: 'Plain' })]);
  await service.admin.setPolicy(trusting.orgId, { ticket: { trustUnverifiedWebhooks: true, gracePeriodMinutes: 0 } });
}, 60_000);

afterAll(async () => {
  await other?.stop();
  await service?.stop();
});

const submitted = async (org: TestOrganisation) => {
  const ticket = `INC-${Date.now().toString(36)}-${++seq}`;
  const made = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Needs the firewall admin password', recipients: [org.owner.email], ticket_ref: ticket },
  });
  expect(made.status, made.text).toBe(201);
  const id = made.body.request.id as string;
  await submitAsSubject(service, id, systemClock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `Helpdesk ${seq}` });
  return { ticket, id, path: new URL(connected.webhook_url).pathname };
};

/** `count` posts of one body at once, alternating between the two services. */
const burst = (path: string, body: unknown, count: number, headers: Record<string, string> = {}) =>
  Promise.all(
    Array.from({ length: count }, (_, i) =>
      fetch(`${i % 2 === 0 ? service.appUrl : other.appUrl}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, text: await response.text() })),
    ),
  );

it('completes a request once for a burst of the same trusted close, without a key', async () => {
  const { ticket, id, path } = await submitted(trusting);
  const answers = await burst(path, { ticket_id: ticket, status: 'closed' }, 10);
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
  expect((await requestItem(service, id))?.status).toBe('completed');
  const types = (await auditEntriesOfRequest(service, trusting.orgId, id)).map((e) => e.type);
  expect(types.filter((t) => t === 'request.completed')).toHaveLength(1);
});

it('completes a request once for a burst of the same trusted close sharing an Idempotency-Key', async () => {
  const { ticket, id, path } = await submitted(trusting);
  const answers = await burst(path, { ticket_id: ticket, status: 'closed' }, 10, { 'Idempotency-Key': `delivery-${ticket}` });
  for (const answer of answers) expect([202, 409], answer.text).toContain(answer.status);
  expect(answers.filter((a) => a.status === 202).length).toBeGreaterThanOrEqual(1);
  expect((await requestItem(service, id))?.status).toBe('completed');
  const entries = await auditEntriesOfRequest(service, trusting.orgId, id);
  expect(entries.filter((e) => e.type === 'request.completed')).toHaveLength(1);
  expect(entries.filter((e) => e.type === 'ticket.status_received')).toHaveLength(1);
});

it('records one status for a burst of the same untrusted post sharing an Idempotency-Key', async () => {
  const { ticket, id, path } = await submitted(plain);
  const answers = await burst(path, { ticket_id: ticket, status: 'pending' }, 10, { 'Idempotency-Key': `delivery-${ticket}` });
  for (const answer of answers) expect([202, 409], answer.text).toContain(answer.status);
  // A later retry of the same delivery is a replay.
  const again = await burst(path, { ticket_id: ticket, status: 'pending' }, 2, { 'Idempotency-Key': `delivery-${ticket}` });
  expect(again.map((a) => a.status)).toEqual([202, 202]);
  expect((await requestItem(service, id))?.ticket?.status).toBe('pending');
  const entries = await auditEntriesOfRequest(service, plain.orgId, id);
  expect(entries.filter((e) => e.type === 'ticket.status_received')).toHaveLength(1);
});

it('leaves the request in one state for a burst of the same untrusted post without a key', async () => {
  const { ticket, id, path } = await submitted(plain);
  const answers = await burst(path, { ticket_id: ticket, status: 'closed' }, 10);
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
  const item = await requestItem(service, id);
  expect(item).toMatchObject({ status: 'submitted', ticket: { status: 'closed', statusVerified: false } });
  expect(await service.deps.requests.material(id)).not.toBeNull();
  const entries = await auditEntriesOfRequest(service, plain.orgId, id);
});
