/**
 * A helpdesk that retries delivers the same status post several times at once, to several
 * function instances. Two services over one table stand for two containers: every post answers
 * 202 (or, sharing an Idempotency-Key with one still under way, 409 / a replay), a close destroys
 * once and is audited once, and the posts leave the request in one consistent state.
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { systemClock } from '../../lambdas/core/clock.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { startLocalService, type LocalService } from '../../lambdas/local/local-service.ts';
import { auditEntries, auditEntriesOfRequest, requestItem } from '../support/shapes.ts';
import { submittedForFreshTicket } from '../support/submission.ts';
import { newTestOutbox, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

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
    outboxDir: newTestOutbox(),
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
  const { ticket, id } = await submittedForFreshTicket(service, org, systemClock);
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `Helpdesk ${++seq}` });
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

/** A trigger URL of `org`'s new integration and a preset that creates without sending. */
const triggerOf = async (org: TestOrganisation) => {
  const slug = `p-${Date.now().toString(36)}-${++seq}`;
  await service.admin.savePreset(
    org.orgId,
    slug,
    `Preset ${slug}`,
    { justification: 'Needs the VPN admin password', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { requesterFromTicket: false, fallbackRequester: org.owner.email },
  );
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: `Trigger ${seq}` });
  return { slug, path: new URL(connected.trigger_url).pathname };
};

const createdFor = async (org: TestOrganisation, ticket: string) => {
  const answer = await service.call('GET', `/requests?ticket_ref=${encodeURIComponent(ticket)}`, { key: org.key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data as Array<{ id: string }>;
};

for (const withKey of [false, true]) {
  it(`creates one request for a burst of the same trigger post ${withKey ? 'sharing an Idempotency-Key' : 'without a key'}`, async () => {
    const { slug, path } = await triggerOf(plain);
    const ticket = `TRG-${Date.now().toString(36)}-${++seq}`;
    const body = { ticket_id: ticket, preset: slug, subject: { name: 'Sam Subject', email: 'sam@example.com' } };
    const answers = await burst(path, body, 10, withKey ? { 'Idempotency-Key': `delivery-${ticket}` } : {});
    for (const answer of answers) expect(withKey ? [202, 409] : [202], answer.text).toContain(answer.status);
    expect(await createdFor(plain, ticket)).toHaveLength(1);
  });
}

it('never completes a request after its status word was remapped, in a burst racing the remap', async () => {
  const { ticket, id, path } = await submitted(trusting);
  const integrations = await service.deps.integrations.list(trusting.orgId);
  const integration = integrations.at(-1)!;
  await configureIntegration(service.deps, OPERATOR_ACTOR, trusting.orgId, integration.id, { statusMap: { '99': 'closed' } });
  const [answers] = await Promise.all([
    burst(path, { ticket_id: ticket, status: '99' }, 10),
    new Promise((resolve) => setTimeout(resolve, 5)).then(() => configureIntegration(service.deps, OPERATOR_ACTOR, trusting.orgId, integration.id, { statusMap: { '99': 'open' } })),
  ]);
  for (const answer of answers) expect([202], answer.text).toContain(answer.status);
  const entries = await auditEntries(service, trusting.orgId);
  const remapped = entries.filter((e) => e.type === 'integration.updated').at(-1)!.seq;
  const completed = entries.find((e) => e.type === 'request.completed' && e.requestId === id);
  if (completed) expect(completed.seq).toBeLessThan(remapped);
  else expect((await requestItem(service, id))?.status).toBe('submitted');
  // Every status the request took after the remap is the new word's.
  for (const entry of entries.filter((e) => e.type === 'ticket.status_received' && e.requestId === id && e.seq > remapped)) {
    expect(entry.data).toMatchObject({ details: { status: 'open' } });
  }
});
